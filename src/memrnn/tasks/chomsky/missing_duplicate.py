"""Missing Duplicate (Delétang et al. 2023, Appendix A; context-sensitive): the symbol
blanked out of a string written twice.

As the authors' ``tasks/cs/missing_duplicate_string.py``: a binary string w of L // 2
uniform bits is written twice, one position of ww drawn uniformly is replaced by the
placeholder, and an odd L ends with the padding token; the class is the replaced bit
(0110 0?10 -> 1, 101 1?1 _ -> 0). The authors' rule for L = 1, followed here: the
string is the single symbol 1 and the class 1. One answer step after the string
(:mod:`memrnn.tasks.chomsky.layout`).

Ids: input bits 0, 1, the placeholder 2, the padding token 3 and the blank 4; output
classes the bits 0, 1.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task

PLACEHOLDER, PADDING = 2, 3


@register_task("missing_duplicate")
class MissingDuplicateTask(ChomskyTask):
    """The bit replaced by a placeholder in a binary string written twice."""

    chomsky_level = "context-sensitive"

    def __repr__(self) -> str:
        return "MissingDuplicateTask()"

    @property
    def alphabet_size(self) -> int:
        """4: bits 0, 1, the placeholder and the padding token."""
        return 4

    @property
    def output_size(self) -> int:
        """2: the bits."""
        return 2

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        if length == 1:
            ones = np.ones((batch_size, 1), dtype=np.int64)
            return Strings.all_scored(ones, ones[:, 0])
        half = rng.integers(0, 2, size=(batch_size, length // 2), dtype=np.int64)
        strings = np.full((batch_size, length), PADDING, dtype=np.int64)
        strings[:, : 2 * half.shape[1]] = np.concatenate([half, half], axis=1)
        where = rng.integers(0, 2 * half.shape[1], size=batch_size)
        rows = np.arange(batch_size)
        missing = strings[rows, where].copy()
        strings[rows, where] = PLACEHOLDER
        return Strings.all_scored(strings, missing)
