"""One run: the curriculum, the training batches within its bound, and every task
trained and traced at the quick profile's lengths."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from memrnn.experiments.grefenstette2015 import Grefenstette2015Config, TransductionRun
from memrnn.tasks.transduction import TASKS

TINY = Grefenstette2015Config(
    steps=2, eval_size=5, hidden=8, embedding=4, memory_width=4, max_length=8,
    test_min_length=9, test_max_length=10,
)  # fmt: skip


def test_the_curriculum_grows_when_the_current_lengths_are_learned() -> None:
    torch.manual_seed(0)
    always = dataclasses.replace(TINY, curriculum_start=2, curriculum_increment=3,
                                 curriculum_threshold=0.0)  # fmt: skip
    run = TransductionRun(always, torch.device("cpu"))
    rng = np.random.default_rng(0)
    bounds = [int(run.model.bound)]
    for _ in range(3):
        run.evaluate(rng)
        bounds.append(int(run.model.bound))
    assert bounds == [2, 5, 8, 8]  # capped at max_length
    assert "bound" in run.model.state_dict()  # so a checkpoint keeps it
    never = dataclasses.replace(always, curriculum_threshold=1.1)
    run = TransductionRun(never, torch.device("cpu"))
    run.evaluate(rng)
    assert int(run.model.bound) == 2
    off = TransductionRun(dataclasses.replace(TINY, curriculum_start=0), torch.device("cpu"))
    assert int(off.model.bound) == TINY.max_length


def test_training_batches_respect_the_bound() -> None:
    run = TransductionRun(dataclasses.replace(TINY, curriculum_start=3), torch.device("cpu"))
    rng = np.random.default_rng(1)
    for _ in range(20):
        assert int(run.training_batch(rng).source_lengths.max()) <= 3


@pytest.mark.parametrize("task", TASKS)
def test_every_task_trains_and_traces_at_the_quick_lengths(task: str) -> None:
    # The quick lengths on every task: the curriculum starts no shorter than the task's
    # shortest source (the ITG grammars have none below 5 words), and the trace is drawn
    # at a test length the task has (bigram flipping: even lengths only; 33 is odd).
    quick = dataclasses.replace(TINY, task=task, model="stack", max_length=32,
                                test_min_length=33, test_max_length=64)  # fmt: skip
    run = TransductionRun(quick, torch.device("cpu"))
    assert int(run.model.bound) >= run.task.shortest_source
    assert torch.isfinite(run.loss(run.training_batch(np.random.default_rng(2))))
    trace = run.artifacts(np.random.default_rng(3))
    assert 33 <= trace["source_length"] <= 34
