"""Modular Arithmetic without brackets (Delétang et al. 2023, Appendix A; regular): the
value of a flat expression of residues and operators modulo 5.

As the authors' ``tasks/regular/modular_arithmetic.py``: an odd length L = 2k + 1 holds
k + 1 residues drawn uniformly from 0 .. m-1 at the even positions and k operators drawn
uniformly from +, -, * at the odd ones; the class is the expression's value mod m, with
* binding tighter than + and - (1 + 2 * 3 -> 2, 1 - 1 - 1 -> 4 with m = 5). The
authors' rule for an even length, followed here: it is rounded down to the odd L - 1, so
a batch asked for length 2 has length 1 (a lone residue). One answer step after the
string (:mod:`memrnn.tasks.chomsky.layout`).

Ids, with m the modulus (5 in the paper): residues 0 .. m-1, + m, - m+1, * m+2, the
authors' "_" m+3 (kept so the alphabet has their size; never drawn), the blank m+4;
output classes the residues 0 .. m-1.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task
from memrnn.validation import check_int

OPERATORS = "+-*"
"""The operators, in id order after the residues."""


def evaluate(numbers: np.ndarray, operators: np.ndarray, modulus: int) -> np.ndarray:
    """(B,) the values mod ``modulus`` of the expressions n_0 o_1 n_1 ... o_k n_k, given
    (B, k+1) residues and (B, k) operator indices into ``OPERATORS`` (* first)."""
    total = np.zeros(len(numbers), dtype=np.int64)  # the finished terms
    term = numbers[:, 0] % modulus  # the signed product being built
    for i in range(operators.shape[1]):
        times = operators[:, i] == 2
        number = numbers[:, i + 1]
        total = np.where(times, total, total + term) % modulus
        signed = np.where(operators[:, i] == 1, -number, number)
        term = np.where(times, term * number, signed) % modulus
    return (total + term) % modulus


@register_task("modular_arithmetic")
class ModularArithmeticTask(ChomskyTask):
    """The value mod ``modulus`` of a flat expression of residues and ``+``, ``-``, ``*``.

    Args:
        modulus: m; the paper's 5.

    Raises:
        ValueError: ``modulus`` is not an int >= 2.
    """

    chomsky_level = "regular"

    def __init__(self, modulus: int = 5) -> None:
        self.modulus = check_int("modulus", modulus, 2)

    def __repr__(self) -> str:
        return f"ModularArithmeticTask(modulus={self.modulus})"

    @property
    def alphabet_size(self) -> int:
        """m + 4: the residues, +, -, * and the authors' unused "_"."""
        return self.modulus + 4

    @property
    def output_size(self) -> int:
        """m: the residues."""
        return self.modulus

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        operators = length // 2 if length % 2 else length // 2 - 1  # even L -> L - 1
        numbers = rng.integers(0, self.modulus, size=(batch_size, operators + 1), dtype=np.int64)
        ops = rng.integers(0, len(OPERATORS), size=(batch_size, operators), dtype=np.int64)
        expressions = np.empty((batch_size, 2 * operators + 1), dtype=np.int64)
        expressions[:, 0::2] = numbers
        expressions[:, 1::2] = self.modulus + ops
        return Strings.all_scored(expressions, evaluate(numbers, ops, self.modulus))
