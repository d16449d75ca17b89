"""The tasks whose input is a string of symbols drawn uniformly from a vocabulary and
whose answer is a rearrangement of those symbols (reverse, duplicate, odds first, bucket
sort of Delétang et al. 2023): one base class, each task giving only its answer."""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.validation import check_int


class SymbolStringTask(ChomskyTask):
    """A string of ``vocab_size`` symbols, answered by ``answer`` of it, every answer step
    scored.

    Args:
        vocab_size: V; each task's default is the paper's (``paper_vocab``).

    Raises:
        ValueError: ``vocab_size`` is not an int >= 2.
    """

    paper_vocab: ClassVar[int] = 2

    def __init__(self, vocab_size: int | None = None) -> None:
        chosen = self.paper_vocab if vocab_size is None else vocab_size
        self.vocab_size = check_int("vocab_size", chosen, 2)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vocab_size={self.vocab_size})"

    @property
    def alphabet_size(self) -> int:
        """V: the symbols."""
        return self.vocab_size

    @property
    def output_size(self) -> int:
        """V: the symbols."""
        return self.vocab_size

    @staticmethod
    @abstractmethod
    def answer(strings: np.ndarray) -> np.ndarray:
        """The answers (B, O) to the strings (B, L)."""

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        strings = rng.integers(0, self.vocab_size, size=(batch_size, length), dtype=np.int64)
        return Strings.all_scored(strings, self.answer(strings))
