"""Associative retrieval on the Task contract: one K per batch, only the answer scored,
the paper's error."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.tasks import RetrievalTask, make_task
from memrnn.tasks.retrieval import answer, sample, to_text


def test_the_batch_is_the_samplers_with_the_answer_last() -> None:
    task = make_task("associative_retrieval")
    batch = task.sample_batch(np.random.default_rng(4), 50, 2, 6)
    pairs = (batch.inputs.shape[1] - 3) // 2
    rng = np.random.default_rng(4)
    assert int(rng.integers(2, 7)) == pairs
    inputs, answers = sample(rng, 50, pairs)
    assert torch.equal(batch.inputs, torch.from_numpy(inputs))
    assert batch.targets[:, -1].tolist() == answers.tolist()
    assert [answer(to_text(row)) for row in inputs] == answers.tolist()
    assert batch.mask[:, -1].all() and not batch.mask[:, :-1].any()


def test_lengths_vary_between_batches() -> None:
    task = RetrievalTask()
    rng = np.random.default_rng(0)
    widths = {task.sample_batch(rng, 2, 1, 26).inputs.shape[1] for _ in range(30)}
    assert len(widths) > 5 and all(w % 2 == 1 and 5 <= w <= 55 for w in widths)


def test_error_by_hand() -> None:
    task = RetrievalTask()
    batch = task.sample_batch(np.random.default_rng(1), 4, 4, 4)
    logits = torch.nn.functional.one_hot(batch.targets.clamp(min=0), 10).float()
    logits[0, -1] = logits[0, -1].roll(1)  # one wrong answer of four
    assert task.score(logits, batch) == {"accuracy": 0.75, "error": 0.25}


def test_at_most_26_pairs() -> None:
    with pytest.raises(ValueError, match="max_length: expected an int <= 26, got 27"):
        RetrievalTask().sample_batch(np.random.default_rng(0), 2, 1, 27)
