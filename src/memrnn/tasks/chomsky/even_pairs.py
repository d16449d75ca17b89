"""Even Pairs (Delétang et al. 2023, Appendix A; regular): whether a binary string holds
an even number of the pairs 01 and 10 together.

As the authors' ``tasks/regular/even_pairs.py``: the string is L uniform bits, the class
is 0 if the number of positions i with s_i != s_(i+1) is even, else 1 (so 001110 -> 0,
0101001 -> 1). That count is even exactly when the first and last bits agree. One answer
step after the string (:mod:`memrnn.tasks.chomsky.layout`).

Ids: input bits 0, 1 and the blank 2; output classes 0 (even), 1 (odd).
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task


@register_task("even_pairs")
class EvenPairsTask(ChomskyTask):
    """Whether a binary string has an even number of 01 and 10 pairs."""

    chomsky_level = "regular"

    def __repr__(self) -> str:
        return "EvenPairsTask()"

    @property
    def alphabet_size(self) -> int:
        """2: the bits."""
        return 2

    @property
    def output_size(self) -> int:
        """2: even (0) or odd (1)."""
        return 2

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        bits = rng.integers(0, 2, size=(batch_size, length), dtype=np.int64)
        unequal = (bits[:, 1:] != bits[:, :-1]).sum(axis=1)
        return Strings.all_scored(bits, unequal % 2)
