"""Parity Check (Delétang et al. 2023, Appendix A; regular): whether a binary string
holds an even number of ones.

As the authors' ``tasks/regular/parity_check.py``: the string is L uniform bits, the class
is the number of ones modulo 2 (1010100 -> 1, 01111 -> 0). One answer step after the
string (:mod:`memrnn.tasks.chomsky.layout`).

Ids: input bits 0, 1 and the blank 2; output classes 0 (even), 1 (odd).
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task


@register_task("parity_check")
class ParityCheckTask(ChomskyTask):
    """The parity of the number of ones in a binary string."""

    chomsky_level = "regular"

    def __repr__(self) -> str:
        return "ParityCheckTask()"

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
        return Strings.all_scored(bits, bits.sum(axis=1) % 2)
