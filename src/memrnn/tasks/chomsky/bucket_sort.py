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

from memrnn.tasks.chomsky.symbols import SymbolStringTask
from memrnn.tasks.registry import register_task


@register_task("bucket_sort")
class BucketSortTask(SymbolStringTask):
    """A string of ``vocab_size`` symbols, sorted.

    Args:
        vocab_size: V; the paper's 5.

    Raises:
        ValueError: ``vocab_size`` is not an int >= 2.
    """

    chomsky_level = "context-sensitive"
    paper_vocab = 5

    @staticmethod
    def answer(strings: np.ndarray) -> np.ndarray:
        return np.sort(strings, axis=1)
