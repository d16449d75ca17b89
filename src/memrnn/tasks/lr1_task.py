"""Latch and the six languages of Paassen, Schulz, Hammer (2021, section 4) on the Task
contract: one class for the seven tasks that an LR(1) automaton (Algorithm 1) teaches.

A length is a word's length; inputs are one-hot rows over the automaton's terminals and
nonterminals, the target at step t is 1 exactly when the prefix of length t + 1 is in the
language, and the teacher is the automaton's stack behaviour
(:class:`~memrnn.tasks.lr1_data.LR1Coding`). The data are those of
:func:`~memrnn.tasks.rsm_benchmarks.language_dataset`.
"""

from __future__ import annotations

import functools

import numpy as np

from memrnn.languages.automata import automaton
from memrnn.tasks.base import TaskBatch
from memrnn.tasks.lr1_data import LR1Coding
from memrnn.tasks.registry import register_task
from memrnn.tasks.rsm_benchmarks import (
    LANGUAGE_TASKS,
    TEST_LENGTHS,
    TRAIN_MAX_LENGTH,
    RSMBenchmarkTask,
    language_dataset,
)
from memrnn.validation import check_choice

LR1_TASKS = ("latch", *LANGUAGE_TASKS)


class LR1LanguageTask(RSMBenchmarkTask):
    """Latch or one of the six languages.

    Args:
        language: one of ``LR1_TASKS``.
    """

    value_loss = "bce"  # 0/1 verdicts, as the paper's deep baselines are trained
    train_lengths = (1, TRAIN_MAX_LENGTH)
    test_lengths = TEST_LENGTHS

    def __init__(self, language: str) -> None:
        self.language = check_choice("language", language, LR1_TASKS)
        self._coding = LR1Coding(automaton(language))

    def __repr__(self) -> str:
        return f"LR1LanguageTask({self.language!r})"

    @property
    def input_size(self) -> int:
        """The automaton's terminals and nonterminals."""
        return self._coding.width

    @property
    def output_size(self) -> int:
        """One: whether the prefix is in the language."""
        return 1

    @property
    def nonterminals(self) -> np.ndarray:
        return self._coding.nonterminal_codes()

    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        lengths = (min_length, max_length)
        return language_dataset(self.language, rng, batch_size, lengths).as_batch()


for _language in LR1_TASKS:
    register_task(f"rsm_{_language}", functools.partial(LR1LanguageTask, _language))
