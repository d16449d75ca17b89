"""Binary Multiplication (Delétang et al. 2023, Appendix A; context-sensitive): the
product of two little-endian binary numbers.

As the authors' ``tasks/cs/binary_multiplication.py``: for L >= 3 the string is
``n * m`` (:mod:`memrnn.tasks.chomsky.binary`: widths k and L - 1 - k, nonzero numbers,
little-endian) and the answer n * m little-endian (at most L - 1 bits), the termination
token, then zeros up to L symbols (001 * 01101 -> 0 0 0 1 1 0 1 END 0: 4 * 22 = 88).
The authors' rule for L <= 2, followed here: the string is L bits of a number drawn
uniformly from 0 .. 2^L - 2, with no *, and the answer is arbitrarily fixed at L - 1
zeros and the termination token. L answer steps after the string, scored up to the
termination token (:mod:`memrnn.tasks.chomsky.layout`).

Ids: input bits 0, 1, * 2 and the blank 3; output classes the bits 0, 1 and the
termination token 2.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.binary import END, answers, operands, short_numbers
from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task


@register_task("binary_multiplication")
class BinaryMultiplicationTask(ChomskyTask):
    """n * m of little-endian binary numbers."""

    chomsky_level = "context-sensitive"

    def __repr__(self) -> str:
        return "BinaryMultiplicationTask()"

    @property
    def alphabet_size(self) -> int:
        """3: bits 0, 1 and ``*``."""
        return 3

    @property
    def output_size(self) -> int:
        """3: bits 0, 1 and the termination token."""
        return 3

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        if length <= 2:
            strings = short_numbers(rng, batch_size, length)
            fixed = np.zeros((batch_size, length), dtype=np.int64)
            fixed[:, -1] = END
            return Strings.up_to_termination(strings, fixed, END)
        strings, n, m = operands(rng, batch_size, length)
        products = [a * b for a, b in zip(n, m, strict=True)]
        return Strings.up_to_termination(strings, answers(products, length), END)
