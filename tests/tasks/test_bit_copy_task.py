"""Copy and repeat copy on the Task contract: the benchmark's data, padded, with their
teachers; the repeats as options."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.tasks import BitCopyTask, BitRepeatCopyTask, make_task
from memrnn.tasks.base import TaskBatch
from memrnn.tasks.rsm_benchmarks import Dataset, make_dataset


def _same(batch: TaskBatch, data: Dataset) -> None:
    for b, (x, y, teacher) in enumerate(zip(data.inputs, data.targets, data.teachers, strict=True)):
        n = len(x)
        assert torch.equal(batch.inputs[b, :n], torch.from_numpy(x).float())
        assert torch.equal(batch.targets[b, :n], torch.from_numpy(y).float())
        assert not batch.inputs[b, n:].any() and int(batch.mask[b].sum()) == n
        assert batch.teachers[b].actions == teacher.actions


def test_copy_is_the_benchmarks() -> None:
    task = make_task("rsm_copy")
    assert (task.input_size, task.output_size) == (9, 8)
    batch = task.sample_batch(np.random.default_rng(3), 8, *task.train_lengths)
    _same(batch, make_dataset("copy", np.random.default_rng(3), 8, test=False))


def test_repeat_copy_tests_with_more_repeats() -> None:
    test = make_task("rsm_repeat_copy", max_repeats=20)
    assert isinstance(test, BitRepeatCopyTask) and test.repeats == (1, 20)
    batch = test.sample_batch(np.random.default_rng(4), 8, *test.test_lengths)
    _same(batch, make_dataset("repeat_copy", np.random.default_rng(4), 8, test=True))
    ends = (batch.inputs[:, :, -1] == 1).sum(dim=1)
    assert 1 <= int(ends.min()) and int(ends.max()) <= 20


def test_bad_arguments() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="max_length: expected an int <= 20, got 21"):
        BitCopyTask().sample_batch(rng, 2, 1, 21)
    with pytest.raises(ValueError, match="min_repeats: expected an int >= 1, got 0"):
        BitRepeatCopyTask(min_repeats=0)
    with pytest.raises(ValueError, match="min_repeats 3 is greater than max_repeats 2"):
        BitRepeatCopyTask(3, 2)
