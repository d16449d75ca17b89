"""Sequence reversal, laid out as in Trask (2016), *Hacking DeepMind's Neural Stack*.

A sequence of L symbols is shown one symbol per step for L encoding steps; in the L
decoding steps that follow, the model must emit the sequence reversed. Unlike the
``<s> source ||| target </s>`` layout of Grefenstette et al. (2015, section 4), the
tutorial marks the phase with a flag that is on for the whole phase rather than a single
separator token (its "Known Deviations" item 2): a plain RNN forgets a one-step marker,
and the flags let it converge quickly.

Input channels at each step (size k + 2):

- ``0 .. k-1``: the one-hot symbol during encoding, all zeros during decoding;
- ``k``: the encoding flag, 1 during encoding;
- ``k+1``: the decoding flag, 1 during decoding.

(The tutorial orders them decoding flag, encoding flag, symbols; the order carries no
meaning for a model.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from memrnn.tasks.base import IGNORE_INDEX, Task, TaskBatch
from memrnn.tasks.registry import register_task
from memrnn.tasks.scoring import class_hits, sequence_accuracy
from memrnn.validation import check_generator, check_int

# The lengths the trask2016 experiment trains on and measures generalisation at.
TRAIN_LENGTHS = (2, 6)
TEST_LENGTHS = (12, 12)


@dataclass(frozen=True)
class ReversalBatch(TaskBatch):
    """One batch of reversal examples, all of the same source length L: a ``TaskBatch``
    (so the task's ``loss`` and ``score`` take it) with its source symbols.

    Attributes:
        inputs: (B, 2L, k+2) float32, the layout in the module docstring.
        targets: (B, 2L) int64; ``IGNORE_INDEX`` (-100) during encoding, where nothing is
            scored, and the reversed sequence during decoding.
        mask: (B, 2L) bool, the decoding steps.
        sequences: (B, L) int64, the source symbols in 0 .. k-1.
    """

    sequences: Tensor = field(kw_only=True)


@register_task("trask_reversal")
class ReversalTask(Task):
    """The reversal task over a vocabulary of ``vocab_size`` symbols (the tutorial uses 2).

    On the Task contract (:mod:`memrnn.tasks.base`) a length is L, one per batch, drawn
    uniformly from the range before the batch; the decoding steps are scored.

    Args:
        vocab_size: k, the number of symbols; at least 2.
    """

    input_kind = "vectors"
    output_kind = "classes"
    train_lengths = TRAIN_LENGTHS
    test_lengths = TEST_LENGTHS

    def __init__(self, vocab_size: int = 2) -> None:
        self.vocab_size = check_int("vocab_size", vocab_size, 2)

    def __repr__(self) -> str:
        return f"ReversalTask(vocab_size={self.vocab_size})"

    @property
    def input_size(self) -> int:
        """k + 2: the one-hot symbol and the two phase flags."""
        return self.vocab_size + 2

    @property
    def output_size(self) -> int:
        """k: one logit per symbol."""
        return self.vocab_size

    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        length = int(rng.integers(min_length, max_length + 1))
        return self.sample(rng, batch_size, length)

    def sample(self, rng: np.random.Generator, batch_size: int, length: int) -> ReversalBatch:
        """``batch_size`` sequences of ``length`` symbols, uniform and i.i.d. from ``rng``."""
        check_int("batch_size", batch_size, 1)
        check_int("length", length, 1)
        check_generator("rng", rng)
        k = self.vocab_size
        seq = torch.from_numpy(rng.integers(0, k, size=(batch_size, length), dtype=np.int64))
        return self.make_batch(seq)

    def make_batch(self, sequences: Tensor) -> ReversalBatch:
        """The batch for given source sequences (B, L) of int symbols in 0 .. k-1."""
        if not isinstance(sequences, Tensor) or sequences.ndim != 2:
            raise ValueError("sequences: expected a (B, L) integer tensor")
        if sequences.dtype.is_floating_point or sequences.dtype.is_complex:
            raise ValueError(f"sequences: expected an integer dtype, got {sequences.dtype}")
        b, length = sequences.shape
        if b < 1 or length < 1:
            raise ValueError(f"sequences: expected B >= 1 and L >= 1, got {tuple(sequences.shape)}")
        k = self.vocab_size
        if int(sequences.min()) < 0 or int(sequences.max()) >= k:
            raise ValueError(f"sequences: symbols must lie in 0 .. {k - 1}")
        seq = sequences.to(torch.int64).cpu()
        inputs = torch.zeros(b, 2 * length, k + 2, dtype=torch.float32)
        inputs[:, :length, :k] = torch.nn.functional.one_hot(seq, k).to(torch.float32)
        inputs[:, :length, k] = 1.0
        inputs[:, length:, k + 1] = 1.0
        targets = torch.full((b, 2 * length), IGNORE_INDEX, dtype=torch.int64)
        targets[:, length:] = seq.flip(1)
        mask = targets != IGNORE_INDEX
        return ReversalBatch(inputs=inputs, targets=targets, mask=mask, sequences=seq)

    def accuracy(self, logits: Tensor, batch: ReversalBatch) -> tuple[float, float]:
        """Greedy (argmax) accuracy of ``logits`` (B, 2L, k) on ``batch``.

        Returns (token accuracy over the scored positions, fraction of sequences whose
        every scored position is right).
        """
        want = (*batch.targets.shape, self.vocab_size)
        if not isinstance(logits, Tensor) or tuple(logits.shape) != want:
            got = tuple(logits.shape) if isinstance(logits, Tensor) else type(logits).__name__
            raise ValueError(f"logits: expected shape {want}, got {got}")
        scored = batch.targets.to(logits.device) != IGNORE_INDEX
        correct = class_hits(logits, batch.targets, scored)
        token = correct.sum().item() / max(int(scored.sum().item()), 1)
        return float(token), sequence_accuracy(correct, scored)
