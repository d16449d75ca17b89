"""Odds First (Delétang et al. 2023, Appendix A; context-sensitive): the symbols at odd
positions, then those at even positions.

As the docstring of the authors' ``tasks/cs/odds_first.py`` defines it: the string
s_1 s_2 ... s_L of symbols drawn uniformly from a vocabulary of 2 (the paper's) gives
s_1 s_3 s_5 ... s_2 s_4 s_6 ... (positions counted from 1), and so do its examples
(00110101 -> 0100 0111, 110 -> 10 1). Deviation: that file's code emits the other half
first (s_2 s_4 ... s_1 s_3 ...); its stated definition and examples are followed here,
not its code. L answer steps after the string, all scored
(:mod:`memrnn.tasks.chomsky.layout`).

Ids, with V the vocabulary size: input symbols 0 .. V-1 and the blank V; output classes
the symbols 0 .. V-1.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task
from memrnn.validation import check_int


@register_task("odds_first")
class OddsFirstTask(ChomskyTask):
    """A string of ``vocab_size`` symbols, its odd positions (from 1) first.

    Args:
        vocab_size: V; the paper's 2.

    Raises:
        ValueError: ``vocab_size`` is not an int >= 2.
    """

    chomsky_level = "context-sensitive"

    def __init__(self, vocab_size: int = 2) -> None:
        self.vocab_size = check_int("vocab_size", vocab_size, 2)

    def __repr__(self) -> str:
        return f"OddsFirstTask(vocab_size={self.vocab_size})"

    @property
    def alphabet_size(self) -> int:
        """V: the symbols."""
        return self.vocab_size

    @property
    def output_size(self) -> int:
        """V: the symbols."""
        return self.vocab_size

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        strings = rng.integers(0, self.vocab_size, size=(batch_size, length), dtype=np.int64)
        # Positions 1, 3, 5, ... counted from 1 are indices 0, 2, 4, ...
        return Strings.all_scored(strings, np.concatenate([strings[:, 0::2], strings[:, 1::2]], 1))
