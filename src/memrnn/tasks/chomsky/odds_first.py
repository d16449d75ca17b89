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

from memrnn.tasks.chomsky.symbols import SymbolStringTask
from memrnn.tasks.registry import register_task


@register_task("odds_first")
class OddsFirstTask(SymbolStringTask):
    """A string of ``vocab_size`` symbols, its odd positions (from 1) first.

    Args:
        vocab_size: V; the paper's 2.

    Raises:
        ValueError: ``vocab_size`` is not an int >= 2.
    """

    chomsky_level = "context-sensitive"

    @staticmethod
    def answer(strings: np.ndarray) -> np.ndarray:
        # Positions 1, 3, 5, ... counted from 1 are indices 0, 2, 4, ...
        return np.concatenate([strings[:, 0::2], strings[:, 1::2]], axis=1)
