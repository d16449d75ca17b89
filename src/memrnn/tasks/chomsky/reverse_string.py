"""Reverse String (Delétang et al. 2023, Appendix A; deterministic context-free): the
input string reversed.

As the authors' ``tasks/dcf/reverse_string.py``: the string is L symbols drawn
uniformly from a vocabulary of 2 (the paper's) and the answer s_L ... s_1 (011010 ->
010110). L answer steps after the string, all scored (:mod:`memrnn.tasks.chomsky.layout`).

Ids, with V the vocabulary size: input symbols 0 .. V-1 and the blank V; output classes
the symbols 0 .. V-1.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.symbols import SymbolStringTask
from memrnn.tasks.registry import register_task


@register_task("reverse_string")
class ReverseStringTask(SymbolStringTask):
    """A string of ``vocab_size`` symbols, reversed.

    Args:
        vocab_size: V; the paper's 2.

    Raises:
        ValueError: ``vocab_size`` is not an int >= 2.
    """

    chomsky_level = "context-free"

    @staticmethod
    def answer(strings: np.ndarray) -> np.ndarray:
        return strings[:, ::-1].copy()
