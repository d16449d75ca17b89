"""The nine benchmark data sets of Paassen, Schulz, Hammer (2021, section 4).

latch, copy and repeat copy (the NTM benchmarks) and the six languages Dyck1, Dyck2,
Dyck3, a^n b^n, palindromes and JSON. Each data set holds, per sequence, the inputs, the
desired output at every input step (what every model is scored on), and the teacher of
the stack machines (Algorithm 1's actions for latch and the languages, the stack
heuristic of ``memrnn.tasks.bit_copy`` for the copy tasks).

Lengths, as the paper states them: language and latch words up to length 50 in
training and from length 50 (to 100 here) in testing; copy sequences of 1 to 20 bit
vectors; repeat copy of 1 to 10 bit vectors repeated 1 to 10 times in training and 1 to
20 times in testing.

Alignment: the stack machines give T + 1 outputs for T inputs; for the languages their
row t is the verdict on the prefix of length t (row 0, the empty prefix, is dropped), and
for the copy tasks row t is the output at input step t (the last row, after the input,
is dropped). ``Dataset.targets`` holds what is scored, one row per input step.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np
from torch import Tensor

from memrnn.languages.automata import automaton
from memrnn.languages.pcfg import sample_words
from memrnn.tasks.base import StackTask, TaskBatch
from memrnn.tasks.bit_copy import copy_example
from memrnn.tasks.bit_copy import nonterminal_codes as copy_nonterminals
from memrnn.tasks.lr1_data import LR1Coding, LR1Example
from memrnn.tasks.scoring import mean_absolute_error
from memrnn.tasks.stack_teacher import StackTeacher
from memrnn.validation import check_choice, check_int

LANGUAGE_TASKS = ("dyck1", "dyck2", "dyck3", "anbn", "palindrome", "json")
NTM_TASKS = ("latch", "copy", "repeat_copy")
TASKS = NTM_TASKS + LANGUAGE_TASKS
COPY_TASKS = ("copy", "repeat_copy")

TRAIN_MAX_LENGTH = 50  # language and latch words
TEST_LENGTHS = (50, 100)
COPY_MAX_LENGTH = 20
REPEAT_MAX_LENGTH = 10
REPEATS = {False: 10, True: 20}  # repeat copy's most repeats in training, in testing


@dataclass(frozen=True)
class Dataset:
    """One sampled data set of a benchmark task.

    Attributes:
        task: the task's name (one of ``TASKS``).
        inputs: per sequence, (T, n) input vectors.
        targets: per sequence, (T, L) desired outputs, one row per input step.
        teachers: per sequence, the stack machines' teacher (T + 1 steps).
        nonterminals: (K, n) the vectors the stack machines push for nonterminals.
        binary: True where outputs are 0/1 decisions (latch, the languages); False for
            the copy tasks, whose outputs are regressed.
    """

    task: str
    inputs: list[np.ndarray]
    targets: list[np.ndarray]
    teachers: list[StackTeacher]
    nonterminals: np.ndarray
    binary: bool

    def __len__(self) -> int:
        return len(self.inputs)

    def as_batch(self) -> TaskBatch:
        """The sequences padded into one batch of the Task contract, teachers included."""
        return TaskBatch.of_vector_sequences(self.inputs, self.targets, tuple(self.teachers))


class RSMBenchmarkTask(StackTask):
    """What the nine benchmarks share on the Task contract: vector inputs, real-valued
    targets at every input step (0/1 for latch and the languages, whose outputs are
    logits under binary cross entropy; bits for the copy tasks, regressed under squared
    error: ``value_loss``), a stack teacher per sequence, and the paper's mean absolute
    error of the values (``mae``, Tables 2 and 3) beside the accuracy of values rounded
    to the targets."""

    input_kind = "vectors"
    output_kind = "values"

    def _metrics(self, outputs: Tensor, batch: TaskBatch) -> dict[str, float]:
        return {"mae": mean_absolute_error(outputs, batch.targets, batch.mask)}


def scored_rows(task: str, stack_outputs: np.ndarray) -> np.ndarray:
    """The rows of a stack machine's (T + 1, L) outputs that ``Dataset.targets`` holds."""
    check_choice("task", task, TASKS)
    return stack_outputs[:-1] if task in COPY_TASKS else stack_outputs[1:]


def make_dataset(
    task: str,
    rng: np.random.Generator,
    n: int,
    *,
    test: bool,
    test_lengths: tuple[int, int] = TEST_LENGTHS,
) -> Dataset:
    """``n`` sequences of ``task``, training lengths or (``test=True``) testing lengths;
    ``test_lengths`` changes the word lengths of a language's test set (the benchmark
    uses longer words for deeper stacks)."""
    check_choice("task", task, TASKS)
    check_int("n", n, 1)
    if task == "copy":
        return copy_dataset(rng, n, (1, COPY_MAX_LENGTH))
    if task == "repeat_copy":
        return copy_dataset(rng, n, (1, REPEAT_MAX_LENGTH), repeats=(1, REPEATS[test]))
    return language_dataset(task, rng, n, test_lengths if test else (1, TRAIN_MAX_LENGTH))


def language_dataset(
    task: str, rng: np.random.Generator, n: int, lengths: tuple[int, int]
) -> Dataset:
    """``n`` words of latch or a language (``task``) with lengths in ``lengths``."""
    coding = _coding(task)
    low, high = lengths
    if task == "anbn" and low % 2:  # a^n b^n has only even lengths; sampling needs one
        low += 1
    examples = [_example(task, word) for word in sample_words(task, rng, n, low, high)]
    return Dataset(
        task,
        [e.inputs for e in examples],
        [e.outputs[1:] for e in examples],
        [e.teacher for e in examples],
        coding.nonterminal_codes(),
        binary=True,
    )


@functools.cache
def _coding(task: str) -> LR1Coding:
    """The coding of ``task``'s automaton, made once."""
    return LR1Coding(automaton(task))


# Words up to this length are coded once per process: short words recur in almost every
# batch (Dyck-2 has 1,618 words of lengths 2 to 10), and coding them again was half the
# time of drawing a batch; longer ones rarely recur.
_KEPT_LENGTH = 16


def _example(task: str, word: str) -> LR1Example:
    """``word`` coded and parsed, read-only: its arrays cannot be written and its actions
    are tuples, since a word kept is shared by every data set that draws it."""
    return _kept(task, word) if len(word) <= _KEPT_LENGTH else _frozen(_coding(task).example(word))


@functools.lru_cache(maxsize=4096)
def _kept(task: str, word: str) -> LR1Example:
    return _frozen(_coding(task).example(word))


def _frozen(example: LR1Example) -> LR1Example:
    for array in (example.inputs, example.shift, example.outputs):
        array.flags.writeable = False
    actions = tuple(tuple(step) for step in example.actions)
    return dataclasses.replace(example, actions=actions)


def copy_dataset(
    rng: np.random.Generator,
    n: int,
    lengths: tuple[int, int],
    repeats: tuple[int, int] | None = None,
) -> Dataset:
    """``n`` copy sequences of a number of bit vectors drawn uniformly from ``lengths``,
    or with ``repeats`` repeat-copy sequences, each repeated a number of times drawn
    uniformly from it (after its length)."""
    examples = []
    for _ in range(n):
        length = int(rng.integers(lengths[0], lengths[1] + 1))
        if repeats is None:
            examples.append(copy_example(rng, length))
        else:
            times = int(rng.integers(repeats[0], repeats[1] + 1))
            examples.append(copy_example(rng, length, times))
    return Dataset(
        "copy" if repeats is None else "repeat_copy",
        [e.inputs for e in examples],
        [e.outputs for e in examples],
        [e.teacher for e in examples],
        copy_nonterminals(),
        binary=False,
    )
