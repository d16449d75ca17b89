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

from memrnn.tasks.chomsky.symbols import BitStringTask
from memrnn.tasks.registry import register_task


@register_task("even_pairs")
class EvenPairsTask(BitStringTask):
    """Whether a binary string has an even number of 01 and 10 pairs."""

    chomsky_level = "regular"

    @staticmethod
    def answer(bits: np.ndarray) -> np.ndarray:
        return (bits[:, 1:] != bits[:, :-1]).sum(axis=1) % 2
