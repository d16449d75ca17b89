"""The tasks whose input is a string of symbols drawn uniformly and whose answer is a
function of it, each task giving only that function: a rearrangement of symbols from a
vocabulary (reverse, duplicate, odds first, bucket sort of Delétang et al. 2023), or
bits in and bits or a parity class out (even pairs, parity check, compute sqrt)."""

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


class BitStringTask(ChomskyTask):
    """A string of uniform bits, answered by ``answer`` of it (bits, or a class of two),
    every answer step scored."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    @property
    def alphabet_size(self) -> int:
        """2: the bits."""
        return 2

    @property
    def output_size(self) -> int:
        """2: the bits, or the two classes."""
        return 2

    @staticmethod
    @abstractmethod
    def answer(bits: np.ndarray) -> np.ndarray:
        """The answers (B,) or (B, O) to the bit strings (B, L)."""

    def draw(self, rng: np.random.Generator, batch_size: int, length: int) -> np.ndarray:
        """The bit strings (B, L), uniform unless a task restricts them."""
        return rng.integers(0, 2, size=(batch_size, length), dtype=np.int64)

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        bits = self.draw(rng, batch_size, length)
        return Strings.all_scored(bits, self.answer(bits))
