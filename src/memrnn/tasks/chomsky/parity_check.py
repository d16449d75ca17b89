"""Parity Check (Delétang et al. 2023, Appendix A; regular): whether a binary string
holds an even number of ones.

As the authors' ``tasks/regular/parity_check.py``: the string is L uniform bits, the class
is the number of ones modulo 2 (1010100 -> 1, 01111 -> 0). One answer step after the
string (:mod:`memrnn.tasks.chomsky.layout`).

Ids: input bits 0, 1 and the blank 2; output classes 0 (even), 1 (odd).
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.symbols import BitStringTask
from memrnn.tasks.registry import register_task


@register_task("parity_check")
class ParityCheckTask(BitStringTask):
    """The parity of the number of ones in a binary string."""

    chomsky_level = "regular"

    @staticmethod
    def answer(bits: np.ndarray) -> np.ndarray:
        return bits.sum(axis=1) % 2
