"""Bucket Sort (Delétang et al. 2023, Appendix A; context-sensitive): the input string
sorted.

As the authors' ``tasks/cs/bucket_sort.py``: the string is L symbols drawn uniformly
from a vocabulary of 5 (the paper's) and the answer its symbols in increasing order
(10204112 -> 00111224). L answer steps after the string, all scored
(:mod:`memrnn.tasks.chomsky.layout`).

Ids, with V the vocabulary size: input symbols 0 .. V-1 and the blank V; output classes
the symbols 0 .. V-1.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task
from memrnn.validation import check_int


@register_task("bucket_sort")
class BucketSortTask(ChomskyTask):
    """A string of ``vocab_size`` symbols, sorted.

    Args:
        vocab_size: V; the paper's 5.

    Raises:
        ValueError: ``vocab_size`` is not an int >= 2.
    """

    chomsky_level = "context-sensitive"

    def __init__(self, vocab_size: int = 5) -> None:
        self.vocab_size = check_int("vocab_size", vocab_size, 2)

    def __repr__(self) -> str:
        return f"BucketSortTask(vocab_size={self.vocab_size})"

    @property
    def alphabet_size(self) -> int:
        """V: the symbols."""
        return self.vocab_size

    @property
    def output_size(self) -> int:
        """V: the symbols."""
        return self.vocab_size

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        strings = rng.integers(0, self.vocab_size, size=(batch_size, length), dtype=np.int64)
        return Strings.all_scored(strings, np.sort(strings, axis=1))
