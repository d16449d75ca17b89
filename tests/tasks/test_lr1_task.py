"""Latch and the six languages on the Task contract: the benchmark's data, padded, with
its teachers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from memrnn.tasks import LR1LanguageTask, make_task
from memrnn.tasks.lr1_task import LR1_TASKS
from memrnn.tasks.rsm_benchmarks import make_dataset


@pytest.mark.parametrize("language", LR1_TASKS)
def test_batches_hold_the_benchmarks_training_data(language: str) -> None:
    task = make_task(f"rsm_{language}")
    assert isinstance(task, LR1LanguageTask) and task.output_size == 1
    batch = task.sample_batch(np.random.default_rng(9), 6, *task.train_lengths)
    data = make_dataset(language, np.random.default_rng(9), 6, test=False)
    np.testing.assert_array_equal(task.nonterminals, data.nonterminals)
    for b, (x, y, teacher) in enumerate(zip(data.inputs, data.targets, data.teachers, strict=True)):
        n = len(x)
        assert torch.equal(batch.inputs[b, :n], torch.tensor(x).float())  # x is read-only
        assert torch.equal(batch.targets[b, :n], torch.tensor(y).float())
        assert batch.mask[b].tolist() == [True] * n + [False] * (batch.mask.shape[1] - n)
        assert batch.teachers[b].actions == teacher.actions
        np.testing.assert_array_equal(batch.teachers[b].outputs, teacher.outputs)


def test_mae_of_the_sigmoids_of_the_logits() -> None:
    task = LR1LanguageTask("dyck1")
    batch = task.sample_batch(np.random.default_rng(0), 5, 2, 10)
    scores = task.score(torch.full((*batch.mask.shape, 1), math.log(0.25 / 0.75)), batch)
    accepted = [float(batch.targets[b, batch.mask[b], 0].mean()) for b in range(5)]
    # |0.25 - 1| = 0.75 at accepted prefixes, 0.25 elsewhere
    want = np.mean([0.75 * a + 0.25 * (1 - a) for a in accepted])
    assert scores["mae"] == pytest.approx(want)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="language: expected one of latch, dyck1"):
        LR1LanguageTask("dyck4")
    with pytest.raises(ValueError, match="dyck1 has no words of lengths 1 to 1"):
        LR1LanguageTask("dyck1").sample_batch(np.random.default_rng(0), 2, 1, 1)
