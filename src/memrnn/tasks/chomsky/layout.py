"""The tasks of Delétang et al. (2023), *Neural Networks and the Chomsky Hierarchy*, on
the Task contract: how a string and its answer become a batch.

The authors' models read the input string, then one "empty" token per output symbol
(their ``make_model_with_empty_targets`` without computation steps), and answer at those
steps. So here: for an input string of L symbols and an answer of O symbols (O is the
task's ``output_length(L)``: 1 for a classification task), a row is

==========  ==============  ======================================
steps       0 .. L-1        L .. L+O-1
==========  ==============  ======================================
inputs      the string      the blank id (``alphabet_size``)
targets     ``IGNORE_INDEX``  the answer, ``IGNORE_INDEX`` where unscored
==========  ==============  ======================================

and the mask is the scored answer steps. A causal model has read the whole string before
it must answer. All answer steps are scored except, for the tasks with a termination
token (stack manipulation, binary addition and multiplication), those after it: the
authors' ``accuracy_mask``. (Their loss also trains the zero padding after it; ours
trains what it scores.)

A length is the authors' length, L. As the authors sample, one length per batch is drawn
uniformly from [min_length, max_length], so a batch needs no padding; a task with a rule
for lengths it cannot make (modular arithmetic takes odd lengths only) follows the
authors' rule and says so. The paper trains on lengths 1 to 40 and tests on 41 to 500
(section 4), hence ``train_lengths`` and ``test_lengths``.

Besides ``accuracy`` (every scored step of a sequence right), ``score`` gives
``token_accuracy``, the paper's accuracy: the fraction of scored steps right over the
batch (the authors' ``accuracy_fn`` under ``accuracy_mask``).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
import torch
from torch import Tensor

from memrnn.tasks.base import IGNORE_INDEX, Task, TaskBatch
from memrnn.tasks.scoring import class_hits
from memrnn.validation import check_generator, check_int

ChomskyLevel = Literal["regular", "context-free", "context-sensitive"]
"""The paper's groups: regular, deterministic context-free, context-sensitive."""

TRAIN_LENGTHS = (1, 40)
TEST_LENGTHS = (41, 500)


@dataclass(frozen=True)
class Strings:
    """B input strings of one length L and their answers.

    Attributes:
        inputs: (B, L) int64 symbols in 0 .. alphabet_size - 1.
        outputs: (B, O) int64 answer classes.
        scored: (B, O) bool, the answer steps that are scored.
    """

    inputs: np.ndarray
    outputs: np.ndarray
    scored: np.ndarray

    @classmethod
    def all_scored(cls, inputs: np.ndarray, outputs: np.ndarray) -> Strings:
        """Strings whose every answer step is scored; (B,) outputs are one step each."""
        outputs = outputs.reshape(len(outputs), -1)
        return cls(inputs, outputs, np.ones(outputs.shape, dtype=bool))

    @classmethod
    def up_to_termination(cls, inputs: np.ndarray, outputs: np.ndarray, end: int) -> Strings:
        """Strings whose answers are scored up to and including their first ``end``."""
        first = (outputs == end).argmax(axis=1)
        scored = np.arange(outputs.shape[1]) <= first[:, None]
        return cls(inputs, outputs, scored)

    def batch(self, blank: int) -> TaskBatch:
        """The batch of the module docstring, with ``blank`` the input id of the answer
        steps."""
        rows, length = self.inputs.shape
        answer = self.outputs.shape[1]
        inputs = np.full((rows, length + answer), blank, dtype=np.int64)
        inputs[:, :length] = self.inputs
        targets = np.full((rows, length + answer), IGNORE_INDEX, dtype=np.int64)
        targets[:, length:] = np.where(self.scored, self.outputs, IGNORE_INDEX)
        mask = np.zeros((rows, length + answer), dtype=bool)
        mask[:, length:] = self.scored
        x, y = torch.from_numpy(inputs), torch.from_numpy(targets)
        return TaskBatch(x, y, torch.from_numpy(mask))


class ChomskyTask(Task):
    """A task of Delétang et al. (2023) in the layout of the module docstring.

    Subclasses set ``chomsky_level``, give ``alphabet_size`` (the authors' input size)
    and ``output_size``, and implement ``_strings``.

    Attributes:
        chomsky_level: where the paper places the task in the Chomsky hierarchy
            ("context-free" stands for its deterministic context-free group).
    """

    input_kind = "tokens"
    output_kind = "classes"
    train_lengths = TRAIN_LENGTHS
    test_lengths = TEST_LENGTHS
    chomsky_level: ClassVar[ChomskyLevel]

    @property
    @abstractmethod
    def alphabet_size(self) -> int:
        """The number of symbols an input string is made of: ids 0 .. alphabet_size - 1."""

    @property
    def blank(self) -> int:
        """The input id of the answer steps: ``alphabet_size``."""
        return self.alphabet_size

    @property
    def input_size(self) -> int:
        """``alphabet_size`` + 1: the symbols and the blank."""
        return self.alphabet_size + 1

    def sample_strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        """``batch_size`` input strings of the authors' length ``length`` (or the length
        the task's rule makes of it) and their answers, drawn from ``rng`` only.

        Raises:
            ValueError: naming a generator that is not a ``numpy.random.Generator`` or a
                bad count or length.
        """
        check_generator("rng", rng)
        size = check_int("batch_size", batch_size, 1)
        return self._strings(rng, size, check_int("length", length, 1))

    @abstractmethod
    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        """``sample_strings`` once its arguments are checked."""

    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        length = int(rng.integers(min_length, max_length + 1))
        return self._strings(rng, batch_size, length).batch(self.blank)

    def _metrics(self, outputs: Tensor, batch: TaskBatch) -> dict[str, float]:
        hits = class_hits(outputs, batch.targets, batch.mask)
        scored = batch.mask.to(hits.device)
        return {"token_accuracy": float(hits.sum().item()) / float(scored.sum().item())}
