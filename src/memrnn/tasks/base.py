"""The Task contract: what a model reads, what it must output, and how it is scored.

After the ``GeneralizationTask`` of Delétang et al. (2023), *Neural Networks and the
Chomsky Hierarchy*: a task states its input and output sizes, samples a batch of a given
length range, and scores a model's outputs. Here a task also says whether its inputs are
token ids or real vectors and its outputs classes or real values, samples from a seeded
``numpy.random.Generator`` (no global random state, no files), marks the scored steps with
a mask, and scores with its paper's own metrics beside a plain per-sequence accuracy.

Layout, for B sequences padded to T steps:

- ``inputs``: (B, T) int64 token ids in 0 .. input_size - 1, or (B, T, input_size)
  float32 vectors;
- ``targets``: (B, T) int64 classes in 0 .. output_size - 1 (``IGNORE_INDEX`` at the steps
  not scored, so ``torch.nn.functional.cross_entropy`` skips them), or (B, T, output_size)
  float32 values (zero at the steps not scored);
- ``mask``: (B, T) bool, the scored steps;
- a model's outputs: (B, T, output_size) floats, the one at step t computed after reading
  inputs 0 .. t: logits for classes; for values, the values themselves or, for a task
  whose values are 0/1 (``value_loss = "bce"``), their logits.

``Task.loss`` is what a model trains on (:mod:`memrnn.tasks.losses`): cross entropy for
classes, binary cross entropy or squared error for values, averaged over the scored steps.

A task that can say how a stack machine should drive its stack (Paassen, Schulz, Hammer
2021: the LR(1) languages by Algorithm 1, the copy tasks by a stack heuristic) is a
:class:`StackTask`: its batches carry one :class:`StackTeacher` per sequence.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeVar

import numpy as np
import torch
from torch import Tensor

from memrnn.tasks.losses import Loss, ValueLoss, output_values, scored_loss
from memrnn.tasks.scoring import check_outputs, class_hits, sequence_accuracy, value_hits
from memrnn.tasks.stack_teacher import StackTeacher
from memrnn.validation import (
    check_fits_in_memory,
    check_generator,
    check_int,
    check_int_range,
)

IGNORE_INDEX = -100  # torch.nn.functional.cross_entropy's default ignore_index

InputKind = Literal["tokens", "vectors"]
OutputKind = Literal["classes", "values"]
_Batch = TypeVar("_Batch", bound="TaskBatch")


@dataclass(frozen=True)
class TaskBatch:
    """B sequences in the layout of the module docstring.

    Attributes:
        inputs: (B, T) int64 token ids or (B, T, input_size) float32 vectors.
        targets: (B, T) int64 classes or (B, T, output_size) float32 values.
        mask: (B, T) bool, True at the steps that are scored.
        teachers: for a :class:`StackTask`, each sequence's stack teacher (T_b + 1 steps
            for its T_b input steps); empty otherwise.
    """

    inputs: Tensor
    targets: Tensor
    mask: Tensor
    teachers: tuple[StackTeacher, ...] = ()

    def __post_init__(self) -> None:
        for name in ("inputs", "targets", "mask"):
            value = getattr(self, name)
            if not isinstance(value, Tensor):
                raise TypeError(f"{name}: expected a tensor, got {type(value).__name__}")
        if self.mask.dtype != torch.bool or self.mask.dim() != 2:
            raise ValueError(f"mask: expected a (B, T) bool tensor, got {self.mask.dtype}")
        shape = tuple(self.mask.shape)
        for name in ("inputs", "targets"):
            value = getattr(self, name)
            if tuple(value.shape[:2]) != shape or value.dim() > 3:
                got = tuple(value.shape)
                raise ValueError(f"{name}: expected shape {shape} or {shape} + (size,), got {got}")
        if self.teachers and len(self.teachers) != shape[0]:
            count = len(self.teachers)
            raise ValueError(f"teachers: expected one per sequence ({shape[0]}), got {count}")

    def to(self: _Batch, device: torch.device | str) -> _Batch:
        """The same batch (of the same class) with its tensors on ``device``."""
        moved = {
            f.name: getattr(self, f.name).to(device)
            for f in dataclasses.fields(self)
            if isinstance(getattr(self, f.name), Tensor)
        }
        return dataclasses.replace(self, **moved)

    @classmethod
    def of_class_targets(cls, inputs: Tensor, targets: Tensor) -> TaskBatch:
        """The batch whose scored steps are those with a class, not ``IGNORE_INDEX``."""
        return cls(inputs, targets, targets != IGNORE_INDEX)

    @classmethod
    def of_vector_sequences(
        cls,
        inputs: list[np.ndarray],
        targets: list[np.ndarray],
        teachers: tuple[StackTeacher, ...] = (),
    ) -> TaskBatch:
        """Sequences of (T_b, n) input and (T_b, L) target vectors, padded with zeros to
        the longest; every step of a sequence is scored, padding is not."""
        if not inputs or len(inputs) != len(targets):
            raise ValueError("inputs, targets: expected as many target as input sequences")
        steps = max(len(x) for x in inputs)
        x = np.zeros((len(inputs), steps, inputs[0].shape[1]), dtype=np.float32)
        y = np.zeros((len(inputs), steps, targets[0].shape[1]), dtype=np.float32)
        mask = np.zeros((len(inputs), steps), dtype=bool)
        for b, (xb, yb) in enumerate(zip(inputs, targets, strict=True)):
            x[b, : len(xb)], y[b, : len(yb)], mask[b, : len(xb)] = xb, yb, True
        return cls(torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(mask), teachers)


class Task(ABC):
    """A task on the contract of the module docstring.

    Subclasses set ``input_kind``, ``output_kind``, ``train_lengths`` and
    ``test_lengths`` (and ``value_loss`` for 0/1 values), give the two sizes below,
    implement ``_sample`` (its arguments already checked) and, for metrics of their own,
    override ``_metrics``.

    Attributes:
        value_loss: for values, how the outputs are read and trained: ``"mse"`` (the
            default), the values themselves under squared error; ``"bce"``, logits of
            0/1 values under binary cross entropy. Unused for classes.
        train_lengths: the (min, max) lengths its paper trains on; what a length counts
            is the task's own (source symbols, string tokens, key-value pairs, ...).
        test_lengths: the (min, max) lengths its paper tests generalisation on.
    """

    input_kind: ClassVar[InputKind]
    output_kind: ClassVar[OutputKind]
    value_loss: ClassVar[ValueLoss] = "mse"
    train_lengths: tuple[int, int]
    test_lengths: tuple[int, int]

    @property
    @abstractmethod
    def input_size(self) -> int:
        """The number of input token ids, or the width of an input vector."""

    @property
    @abstractmethod
    def output_size(self) -> int:
        """The number of output classes, or the width of an output vector."""

    def sample_batch(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        """``batch_size`` fresh sequences with lengths in [min_length, max_length], drawn
        from ``rng`` only: the same generator state gives the same batch.

        Raises:
            ValueError: naming a generator that is not a ``numpy.random.Generator``, a
                bad count or length, or a range the task has no sequence in.
        """
        check_generator("rng", rng)
        size = check_int("batch_size", batch_size, 1)
        low, high = check_int_range(("min_length", "max_length"), min_length, max_length, 1)
        # a sequence takes a few times its length in ids, targets and masks (8 bytes each)
        check_fits_in_memory("batch_size * max_length", f"{size} * {high}", 64 * size * high)
        return self._sample(rng, size, low, high)

    @abstractmethod
    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        """``sample_batch`` once its arguments are checked."""

    @property
    def loss_kind(self) -> Loss:
        """``"cross_entropy"`` for classes, else ``value_loss``."""
        return "cross_entropy" if self.output_kind == "classes" else self.value_loss

    def loss(self, outputs: Tensor, batch: TaskBatch) -> Tensor:
        """The training loss of ``outputs`` (B, T, output_size) on ``batch``, averaged
        over the scored steps: for classes the cross entropy of the logits (the mean over
        scored tokens); for values, per ``value_loss``, the binary cross entropy of the
        logits or the squared error (the mean over scored steps and channels).

        Raises:
            ValueError: ``outputs`` is not a float tensor of that shape, or the batch has
                no scored step.
        """
        check_outputs(outputs, batch.mask, self.output_size)
        return scored_loss(self.loss_kind, outputs, batch.targets, batch.mask)

    @torch.no_grad()
    def score(self, outputs: Tensor, batch: TaskBatch) -> dict[str, float]:
        """The metrics of ``outputs`` (B, T, output_size) on ``batch``: ``accuracy``, the
        fraction of sequences right at every scored step (the largest logit is the target
        class, or every value lies within 0.5 of its target), and the task's own. The
        outputs of a ``"bce"`` task are logits: its values are their sigmoids.

        Raises:
            ValueError: ``outputs`` is not a float tensor of that shape.
        """
        check_outputs(outputs, batch.mask, self.output_size)
        if self.output_kind == "classes":
            hits = class_hits(outputs, batch.targets, batch.mask)
        else:
            outputs = output_values(self.value_loss, outputs)
            hits = value_hits(outputs, batch.targets, batch.mask)
        return {"accuracy": sequence_accuracy(hits, batch.mask), **self._metrics(outputs, batch)}

    def _metrics(self, outputs: Tensor, batch: TaskBatch) -> dict[str, float]:
        """The task's own metrics of checked ``outputs``: for values, the values they
        stand for (``score``); none unless overridden."""
        return {}


class StackTask(Task):
    """A task whose batches carry a stack teacher per sequence
    (``TaskBatch.teachers``): the actions a reservoir or deep stack machine is taught by
    teacher forcing (Paassen, Schulz, Hammer 2021, Algorithm 4)."""

    @property
    @abstractmethod
    def nonterminals(self) -> np.ndarray:
        """The vector pushed for each nonterminal index of the actions, (K, input_size)."""
