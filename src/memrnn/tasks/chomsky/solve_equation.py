"""Solve Equation (Delétang et al. 2023, Appendix A; deterministic context-free): the
value of the unknown x in a bracketed linear equation mod 5.

As the authors' ``tasks/dcf/solve_equation.py``: for L >= 3, an expression of L - 2
symbols from the recursive generator of :mod:`memrnn.tasks.chomsky.expressions` with
+ and - only (so x has exactly one solution), one of its residues replaced by x (the
first residue at or after a position drawn uniformly, cyclically), then = and the
expression's value: L symbols in all. The class is the replaced residue. The authors'
rule for L < 3, followed here: the string is L residues 0 and the class 0. One answer
step after the string (:mod:`memrnn.tasks.chomsky.layout`).

Ids, with m the modulus (5 in the paper), the authors' alphabet for this task: residues
0 .. m-1, + m, - m+1, ( m+2, ) m+3, x m+4, = m+5, the blank m+6; output classes the
residues 0 .. m-1.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.expressions import CLOSE, MINUS, OPEN, PLUS, random_expressions
from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task
from memrnn.validation import check_int


@register_task("solve_equation")
class SolveEquationTask(ChomskyTask):
    """The residue x stands for in ``expression(x) = value`` mod ``modulus``.

    Args:
        modulus: m; the paper's 5.

    Raises:
        ValueError: ``modulus`` is not an int >= 2.
    """

    chomsky_level = "context-free"

    def __init__(self, modulus: int = 5) -> None:
        self.modulus = check_int("modulus", modulus, 2)
        m = self.modulus
        # The generator's symbols -> this task's ids (* never occurs: -1).
        self._ids = np.full(m + 5, -1, dtype=np.int64)
        self._ids[:m] = np.arange(m)
        self._ids[m + np.array([PLUS, MINUS, OPEN, CLOSE])] = [m, m + 1, m + 2, m + 3]

    def __repr__(self) -> str:
        return f"SolveEquationTask(modulus={self.modulus})"

    @property
    def unknown(self) -> int:
        """The id of x: m + 4."""
        return self.modulus + 4

    @property
    def equals(self) -> int:
        """The id of =: m + 5."""
        return self.modulus + 5

    @property
    def alphabet_size(self) -> int:
        """m + 6: the residues, + - ( ) x =."""
        return self.modulus + 6

    @property
    def output_size(self) -> int:
        """m: the residues."""
        return self.modulus

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        if length < 3:
            zeros = np.zeros((batch_size, length), dtype=np.int64)
            return Strings.all_scored(zeros, np.zeros(batch_size, dtype=np.int64))
        size = length - 2
        symbols, values = random_expressions(rng, batch_size, size, self.modulus, times=False)
        # The first residue at or after a uniform position, wrapping round.
        drawn = rng.integers(0, size, size=(batch_size, 1))
        ahead = (np.arange(size) - drawn) % size
        where = np.where(symbols < self.modulus, ahead, size).argmin(axis=1)
        rows = np.arange(batch_size)
        solutions = symbols[rows, where]
        equations = np.empty((batch_size, length), dtype=np.int64)
        equations[:, :size] = self._ids[symbols]
        equations[rows, where] = self.unknown
        equations[:, size] = self.equals
        equations[:, size + 1] = values
        return Strings.all_scored(equations, solutions)
