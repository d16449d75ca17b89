"""Modular Arithmetic with brackets (Delétang et al. 2023, Appendix A; deterministic
context-free): the value mod 5 of a bracketed expression.

As the authors' ``tasks/dcf/modular_arithmetic_brackets.py`` with ``mult=True``, as their
experiments build it (``experiments/constants.py``): an expression of exactly L symbols
from the recursive generator of :mod:`memrnn.tasks.chomsky.expressions` (residues,
+, -, *, brackets; every length L >= 1 has expressions), the class its value mod m.
One answer step after the string (:mod:`memrnn.tasks.chomsky.layout`).

Ids, with m the modulus (5 in the paper): residues 0 .. m-1, + m, - m+1, * m+2, ( m+3,
) m+4, the authors' "x" m+5 (kept so the alphabet has their size; never drawn), the
blank m+6; output classes the residues 0 .. m-1.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.expressions import random_expressions
from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task
from memrnn.validation import check_flag, check_int


@register_task("modular_arithmetic_brackets")
class ModularArithmeticBracketsTask(ChomskyTask):
    """The value mod ``modulus`` of a random bracketed expression of ``+``, ``-`` and ``*``.

    Args:
        modulus: m; the paper's 5.
        times: whether * is among the operators (the paper's experiments: yes).

    Raises:
        ValueError: ``modulus`` is not an int >= 2 or ``times`` not a bool.
    """

    chomsky_level = "context-free"

    def __init__(self, modulus: int = 5, times: bool = True) -> None:
        self.modulus = check_int("modulus", modulus, 2)
        self.times = check_flag("times", times)

    def __repr__(self) -> str:
        return f"ModularArithmeticBracketsTask(modulus={self.modulus}, times={self.times})"

    @property
    def alphabet_size(self) -> int:
        """m + 6: the residues, + - * ( ) and the authors' unused "x"."""
        return self.modulus + 6

    @property
    def output_size(self) -> int:
        """m: the residues."""
        return self.modulus

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        symbols, values = random_expressions(rng, batch_size, length, self.modulus, self.times)
        return Strings.all_scored(symbols, values)
