"""The five transduction tasks of Grefenstette et al. (2015), section 4.

- ``copy``: target = source; ``reversal``: target = the source reversed;
  ``bigram_flip``: an even-length source with each pair swapped (a1 a2 a3 a4 -> a2 a1 a4 a3).
  The source is uniform i.i.d. over ``vocab_size`` symbols (128 in the paper), its length
  uniform over [min_length, max_length] (bigram flip: over the even lengths in it).
- ``svo_sov`` and ``conjugation``: pairs drawn from the ITGs of
  :mod:`memrnn.languages.grammars`, rejected unless the source length lies in
  [min_length, max_length]. The paper trains on [8, 64] and tests on [65, 128].

Ids. Source and target symbols are separate id spaces, numbered from 0 (``source_vocab``
and ``target_vocab`` symbols; the two sizes coincide for copy, reversal and bigram flip;
for the ITG tasks symbol i is ``source_words[i]`` or ``target_words[i]``). With
S = source_vocab and V = target_vocab:

==============  ======================  =============================================
side            id                      meaning
==============  ======================  =============================================
input           0 .. S-1                source symbol s is id s
input           S .. S+V-1              target symbol t (fed back) is id S + t
input           S+V, S+V+1, S+V+2       ``<s>``, ``|||``, ``</s>`` (``</s>`` also pads)
output          0 .. V-1                target symbol t is id t
output          V                       ``</s>``
==============  ======================  =============================================

so a model has ``input_size`` = S + V + 3 input and ``output_size`` = V + 1 output ids.

Batch layout. Each row's input is the joint sequence ``<s> source ||| target </s>``
(L + M + 3 ids for a source of L and a target of M symbols), padded with the input ``</s>``
to the batch's longest. Its target at step i is the output id of input i + 1 when that is
a target symbol or the final ``</s>``, and ``IGNORE_INDEX`` (-100) elsewhere: reading
``|||`` (step L + 1) the model must emit target[0]; fed target[0] it must emit target[1];
...; fed target[M-1] it must emit ``</s>``. Nothing is scored while the source is read,
at the final input ``</s>`` or on padding. Copy with S = V = 4 and the pairs
([2, 0], [2, 0]) and ([1], [1]) (``<s>`` = 8, ``|||`` = 9, input ``</s>`` = 10, output
``</s>`` = 4):

==========  ====  ====  ====  ====  ====  ====  ====
step        0     1     2     3     4     5     6
==========  ====  ====  ====  ====  ====  ====  ====
inputs[0]   8     2     0     9     6     4     10
targets[0]  -100  -100  -100  2     0     4     -100
inputs[1]   8     1     9     5     10    10    10
targets[1]  -100  -100  1     4     -100  -100  -100
==========  ====  ====  ====  ====  ====  ====  ====

To decode greedily, feed row b's first ``source_lengths[b] + 2`` inputs (``<s> source
|||``), then each predicted output id t back as input id S + t (``to_input``), until the
model emits ``</s>``; :mod:`memrnn.tasks.transduction_metrics` trims and scores the
predictions against ``TransductionBatch.gold``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from memrnn.errors import UserError
from memrnn.languages.grammars import GENDERLESS_TO_GENDERED, SVO_TO_SOV
from memrnn.languages.itg import ITG, sample_pairs
from memrnn.tasks.base import IGNORE_INDEX, Task, TaskBatch
from memrnn.tasks.registry import register_task
from memrnn.tasks.transduction_metrics import coarse, fine
from memrnn.validation import check_generator, check_int, check_int_range

TASKS = ("copy", "reversal", "bigram_flip", "svo_sov", "conjugation")
"""The task names."""

TRAIN_LENGTHS = (8, 64)  # source lengths, section 4
TEST_LENGTHS = (65, 128)

# The ITG tasks and the grammar each uses unless given another.
_DEFAULT_GRAMMARS = {"svo_sov": SVO_TO_SOV, "conjugation": GENDERLESS_TO_GENDERED}

Pair = tuple[list[int], list[int]]
"""A (source ids, target ids) pair, the target without ``</s>``."""


@dataclass(frozen=True)
class TransductionBatch(TaskBatch):
    """B pairs in the layout of the module docstring: a ``TaskBatch`` (so the task's
    ``loss`` and ``score`` take it) with each row's lengths.

    Attributes:
        inputs: (B, T) int64 input ids, ``<s> source ||| target </s>`` padded with ``</s>``.
        targets: (B, T) int64 output ids to emit after each input; ``IGNORE_INDEX``
            (-100) except where a target symbol or the final ``</s>`` is due.
        mask: (B, T) bool, the scored steps: ``targets != IGNORE_INDEX``.
        source_lengths: (B,) int64, L per row.
        target_lengths: (B,) int64, M per row (without ``</s>``).
    """

    source_lengths: Tensor = field(kw_only=True)
    target_lengths: Tensor = field(kw_only=True)

    def gold(self) -> list[list[int]]:
        """Each row's target output ids including the final ``</s>``, for the metrics."""
        return [row[row != IGNORE_INDEX].tolist() for row in self.targets]


class TransductionTask(Task):
    """One of the five tasks (``TASKS``) with its vocabularies and special ids.

    On the Task contract (:mod:`memrnn.tasks.base`) a length is a source length, a batch
    is :func:`sample_batch`'s with the scored steps as its mask, and the task's metrics
    are ``coarse`` and ``fine`` (:mod:`memrnn.tasks.transduction_metrics`) of the largest
    logits at the scored steps, which are teacher forced: each step reads the gold
    prefix, not the model's own earlier outputs.

    Args:
        name: the task.
        vocab_size: the number of source (and of target) symbols of copy, reversal and
            bigram flip; default 128. The ITG tasks take theirs from the grammar.
        grammar: the ITG of ``svo_sov`` or ``conjugation``; default ``SVO_TO_SOV`` or
            ``GENDERLESS_TO_GENDERED``.

    Raises:
        UserError: (a ValueError) an unknown task.
        ValueError: ``vocab_size`` for an ITG task, ``grammar`` for another, or a bad value.
    """

    input_kind = "tokens"
    output_kind = "classes"
    train_lengths = TRAIN_LENGTHS
    test_lengths = TEST_LENGTHS

    def __init__(
        self, name: str, vocab_size: int | None = None, grammar: ITG | None = None
    ) -> None:
        if not isinstance(name, str) or name not in TASKS:
            raise UserError(f"unknown transduction task {name!r}; the tasks are {TASKS}")
        self.name = name
        self.grammar: ITG | None
        if name in _DEFAULT_GRAMMARS:
            if vocab_size is not None:
                raise ValueError(f"vocab_size: {name} takes its vocabulary from its grammar")
            if grammar is None:
                grammar = _DEFAULT_GRAMMARS[name]
            elif not isinstance(grammar, ITG):
                raise ValueError(f"grammar: expected an ITG, got {type(grammar).__name__}")
            self.grammar = grammar
            self.source_words = grammar.source_words
            self.target_words = grammar.target_words
        else:
            if grammar is not None:
                raise ValueError(f"grammar: {name} draws its sources uniformly, not from a grammar")
            if vocab_size is None:
                vocab_size = 128
            check_int("vocab_size", vocab_size, 1)
            self.grammar = None
            self.source_words = self.target_words = tuple(str(i) for i in range(vocab_size))
        # Word -> id, to turn the grammar's word pairs into ids.
        self._source_ids = {w: i for i, w in enumerate(self.source_words)}
        self._target_ids = {w: i for i, w in enumerate(self.target_words)}

    def __repr__(self) -> str:
        return (
            f"TransductionTask({self.name!r}, source_vocab={self.source_vocab}, "
            f"target_vocab={self.target_vocab})"
        )

    @property
    def shortest_source(self) -> int:
        """The length of the shortest source the task has: the grammar's shortest for an
        ITG task, 2 for bigram flipping (even lengths only), else 1."""
        if self.grammar is not None:
            return self.grammar.min_length
        return 2 if self.name == "bigram_flip" else 1

    @property
    def source_vocab(self) -> int:
        """S, the number of source symbols (ids 0 .. S-1)."""
        return len(self.source_words)

    @property
    def target_vocab(self) -> int:
        """V, the number of target symbols (output ids 0 .. V-1)."""
        return len(self.target_words)

    @property
    def bos(self) -> int:
        """The input id of ``<s>``: S + V."""
        return self.source_vocab + self.target_vocab

    @property
    def sep(self) -> int:
        """The input id of the separator ``|||``: S + V + 1."""
        return self.bos + 1

    @property
    def input_eos(self) -> int:
        """The input id of ``</s>``, which also pads: S + V + 2."""
        return self.bos + 2

    @property
    def eos(self) -> int:
        """The output id of ``</s>``: V."""
        return self.target_vocab

    @property
    def input_size(self) -> int:
        """S + V + 3 input ids."""
        return self.bos + 3

    @property
    def output_size(self) -> int:
        """V + 1 output ids."""
        return self.target_vocab + 1

    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        # the pairs are made here, in range: ``make_batch`` without its check of the ids
        return self._batch_of(self._pairs(rng, batch_size, min_length, max_length))

    def _metrics(self, outputs: Tensor, batch: TaskBatch) -> dict[str, float]:
        predicted = outputs.argmax(dim=-1).cpu()
        rows = range(len(batch.mask))
        mask, targets = batch.mask.cpu(), batch.targets.cpu()
        gold = [targets[b][mask[b]].tolist() for b in rows]
        guesses = [predicted[b][mask[b]].tolist() for b in rows]
        return {"coarse": coarse(guesses, gold), "fine": fine(guesses, gold)}

    def to_input(self, output_ids: Tensor) -> Tensor:
        """The input ids that feed predicted output ids back: t -> S + t, ``</s>`` -> the
        input ``</s>``."""
        if not isinstance(output_ids, Tensor) or output_ids.dtype.is_floating_point:
            raise ValueError("output_ids: expected an integer tensor")
        if output_ids.numel() and (int(output_ids.min()) < 0 or int(output_ids.max()) > self.eos):
            raise ValueError(f"output_ids: ids must lie in 0 .. {self.eos}")
        return torch.where(output_ids == self.eos, self.input_eos, output_ids + self.source_vocab)

    def reference(self, source: Sequence[int]) -> list[int]:
        """The target of ``source`` (symbol ids) for copy, reversal and bigram flip.

        Raises:
            ValueError: an ITG task (its pairs come from the grammar), a symbol out of
                range, or an odd-length source for bigram flip.
        """
        if self.grammar is not None:
            raise ValueError(f"reference: {self.name} pairs come from its grammar, not a function")
        ids = self._check_ids("source", source, self.source_vocab)
        if self.name == "bigram_flip" and len(ids) % 2:
            raise ValueError(f"source: bigram_flip needs an even length, got {len(ids)}")
        return self._target(ids)

    def _target(self, ids: list[int]) -> list[int]:
        """``reference`` of ids known to be in range (and of even length for bigram
        flip)."""
        if self.name == "copy":
            return ids
        if self.name == "reversal":
            return ids[::-1]
        flipped = list(ids)
        flipped[0::2], flipped[1::2] = ids[1::2], ids[0::2]
        return flipped

    def sample_pairs(
        self, rng: np.random.Generator, n: int, min_length: int, max_length: int
    ) -> list[Pair]:
        """``n`` (source, target) id pairs with source lengths in [min_length, max_length].

        Raises:
            ValueError: a bad argument, a range with no even length for bigram flip, or an
                ITG range that rejection cannot fill (``sample_pairs``).
        """
        check_generator("rng", rng)
        check_int("n", n, 0)
        check_int_range(("min_length", "max_length"), min_length, max_length, 1)
        return self._pairs(rng, n, min_length, max_length)

    def _pairs(
        self, rng: np.random.Generator, n: int, min_length: int, max_length: int
    ) -> list[Pair]:
        """``sample_pairs`` once its arguments are checked."""
        if self.grammar is not None:
            pairs = sample_pairs(self.grammar, rng, n, min_length, max_length)
            return [
                ([self._source_ids[w] for w in s], [self._target_ids[w] for w in t])
                for s, t in pairs
            ]
        step = 2 if self.name == "bigram_flip" else 1
        low = -(-min_length // step)  # lengths are step * (low .. high)
        high = max_length // step
        if low > high:
            raise ValueError(
                f"min_length, max_length: bigram_flip needs an even length in "
                f"[{min_length}, {max_length}]"
            )
        out: list[Pair] = []
        vocab = self.source_vocab
        for _ in range(n):
            length = step * int(rng.integers(low, high + 1))
            source = rng.integers(0, vocab, size=length).tolist()
            out.append((source, self._target(source)))
        return out

    def make_batch(self, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> TransductionBatch:
        """The batch (module docstring) of (source ids, target ids) pairs, targets without
        ``</s>``."""
        if not isinstance(pairs, Sequence) or not pairs:
            raise ValueError("pairs: expected a non-empty sequence of (source, target) pairs")
        rows = []
        for source, target in pairs:
            s = self._check_ids("source", source, self.source_vocab)
            t = self._check_ids("target", target, self.target_vocab)
            rows.append((s, t))
        return self._batch_of(rows)

    def _batch_of(self, rows: Sequence[tuple[list[int], list[int]]]) -> TransductionBatch:
        """``make_batch`` of rows of ids known to be in range."""
        inputs, targets = (torch.from_numpy(x) for x in self._arrays(rows))
        return TransductionBatch(
            inputs=inputs,
            targets=targets,
            mask=targets != IGNORE_INDEX,
            source_lengths=torch.tensor([len(s) for s, _ in rows], dtype=torch.int64),
            target_lengths=torch.tensor([len(t) for _, t in rows], dtype=torch.int64),
        )

    def _arrays(self, rows: Sequence[tuple[list[int], list[int]]]) -> tuple[np.ndarray, np.ndarray]:
        """The inputs and targets of ``make_batch`` for rows of ids known to be in range."""
        bos, sep, input_eos, eos, offset = (
            self.bos, self.sep, self.input_eos, self.eos, self.source_vocab
        )  # fmt: skip
        width = max(len(s) + len(t) + 3 for s, t in rows)
        # filled in NumPy, made a tensor once: a tensor per row costs more than the batch
        inputs = np.full((len(rows), width), input_eos, dtype=np.int64)
        targets = np.full((len(rows), width), IGNORE_INDEX, dtype=np.int64)
        for b, (s, t) in enumerate(rows):
            joint = [bos, *s, sep, *[offset + x for x in t], input_eos]
            inputs[b, : len(joint)] = joint
            # Reading ||| (step L + 1) emits t[0], ..., reading t[M-1] emits </s>.
            targets[b, len(s) + 1 : len(s) + len(t) + 2] = [*t, eos]
        return inputs, targets

    @staticmethod
    def _check_ids(name: str, ids: Sequence[int], size: int) -> list[int]:
        out = [int(x) for x in ids]
        bad = [x for x in out if x < 0 or x >= size]
        if bad:
            raise ValueError(f"{name}: symbol ids must lie in 0 .. {size - 1}, got {bad[:5]}")
        return out


def sample_batch(
    task: TransductionTask,
    rng: np.random.Generator,
    batch_size: int,
    min_length: int,
    max_length: int,
) -> TransductionBatch:
    """A batch of ``batch_size`` fresh pairs of ``task`` with source lengths in
    [min_length, max_length]; the same ``rng`` state gives the same batch."""
    if not isinstance(task, TransductionTask):
        raise ValueError(f"task: expected a TransductionTask, got {type(task).__name__}")
    check_int("batch_size", batch_size, 1)
    # the sampler's ids are in range: make_batch's check of each would only repeat it
    return task._batch_of(task.sample_pairs(rng, batch_size, min_length, max_length))


for _name in TASKS:
    register_task(_name, functools.partial(TransductionTask, _name))
