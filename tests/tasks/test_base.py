"""The Task contract itself: TaskBatch's checks and padding, the argument checks and the
scores a Task gives before any task's own metrics."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.tasks.base import IGNORE_INDEX, Task, TaskBatch
from memrnn.tasks.stack_teacher import StackTeacher


class _Parity(Task):
    """A small task to test the base class: the parity of the bits read so far."""

    input_kind = "tokens"
    output_kind = "classes"
    input_size = 2  # type: ignore[assignment]
    output_size = 2  # type: ignore[assignment]
    train_lengths = (1, 4)  # type: ignore[assignment]
    test_lengths = (5, 8)  # type: ignore[assignment]

    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        self.asked = (batch_size, min_length, max_length)
        bits = torch.from_numpy(rng.integers(0, 2, size=(batch_size, max_length)))
        mask = torch.ones(batch_size, max_length, dtype=torch.bool)
        return TaskBatch(bits, bits.cumsum(dim=1) % 2, mask)


def test_a_subclass_gets_checked_arguments_and_the_accuracy() -> None:
    task = _Parity()
    batch = task.sample_batch(np.random.default_rng(0), np.int64(3), 2, 4)  # type: ignore[arg-type]
    assert task.asked == (3, 2, 4) and all(type(v) is int for v in task.asked)
    logits = torch.nn.functional.one_hot(batch.targets, 2).float()
    assert task.score(logits, batch) == {"accuracy": 1.0}
    logits[0, -1] = logits[0, -1].flip(0)  # one wrong step spoils one sequence of three
    assert task.score(logits, batch) == {"accuracy": pytest.approx(2 / 3)}


def test_batch_checks_its_tensors() -> None:
    ids = torch.zeros(2, 3, dtype=torch.int64)
    mask = torch.ones(2, 3, dtype=torch.bool)
    TaskBatch(ids, ids, mask)
    TaskBatch(torch.zeros(2, 3, 4), torch.zeros(2, 3, 1), mask)
    with pytest.raises(TypeError, match="inputs: expected a tensor, got ndarray"):
        TaskBatch(np.zeros((2, 3)), ids, mask)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"mask: expected a \(B, T\) bool tensor"):
        TaskBatch(ids, ids, mask.int())
    with pytest.raises(ValueError, match=r"targets: expected shape \(2, 3\)"):
        TaskBatch(ids, ids[:, :2], mask)
    with pytest.raises(ValueError, match=r"inputs: expected shape \(2, 3\)"):
        TaskBatch(torch.zeros(2, 3, 4, 5), ids, mask)
    teacher = StackTeacher([[]] * 4, np.ones(4), np.zeros((4, 1)))
    with pytest.raises(ValueError, match=r"teachers: expected one per sequence \(2\), got 1"):
        TaskBatch(ids, ids, mask, (teacher,))


def test_vector_sequences_are_padded_and_masked() -> None:
    inputs = [np.ones((3, 2)), 2 * np.ones((1, 2))]
    targets = [np.full((3, 1), 0.5), np.ones((1, 1))]
    batch = TaskBatch.of_vector_sequences(inputs, targets)
    assert batch.inputs.dtype == batch.targets.dtype == torch.float32
    assert batch.inputs[:, :, 0].tolist() == [[1, 1, 1], [2, 0, 0]]
    assert batch.targets[:, :, 0].tolist() == [[0.5, 0.5, 0.5], [1, 0, 0]]
    assert batch.mask.tolist() == [[True, True, True], [True, False, False]]
    with pytest.raises(ValueError, match="inputs, targets: expected as many"):
        TaskBatch.of_vector_sequences(inputs, targets[:1])


def test_ignore_index_is_cross_entropys() -> None:
    logits = torch.zeros(1, 2, 3)
    targets = torch.tensor([[IGNORE_INDEX, 1]])
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    assert float(loss) == pytest.approx(np.log(3))
