"""Compute Sqrt (Delétang et al. 2023, Appendix A; context-sensitive): the floor of the
square root of a big-endian binary number.

As the authors' ``tasks/cs/compute_sqrt.py``: the string is a number drawn uniformly
from 1 .. 2^L - 1 written big-endian in L bits (leading zeros kept), and the answer is
floor(sqrt(n)) big-endian in ceil(L / 2) bits, zero-padded on the left (100101 = 37 ->
110 = 6). There is no termination token; every length L >= 1 has numbers. ceil(L / 2)
answer steps after the string, all scored (:mod:`memrnn.tasks.chomsky.layout`).

Ids: input bits 0, 1 and the blank 2; output classes the bits 0, 1.
"""

from __future__ import annotations

import math

import numpy as np

from memrnn.tasks.chomsky.symbols import BitStringTask
from memrnn.tasks.registry import register_task


@register_task("compute_sqrt")
class ComputeSqrtTask(BitStringTask):
    """floor(sqrt(n)) of a big-endian binary number n."""

    chomsky_level = "context-sensitive"

    def draw(self, rng: np.random.Generator, batch_size: int, length: int) -> np.ndarray:
        """n uniform over 1 .. 2^L - 1: a row of zeros is drawn again."""
        strings = rng.integers(0, 2, size=(batch_size, length), dtype=np.int64)
        while True:
            zero = ~strings.any(axis=1)
            if not zero.any():
                return strings
            strings[zero] = rng.integers(0, 2, size=(int(zero.sum()), length), dtype=np.int64)

    @staticmethod
    def answer(bits: np.ndarray) -> np.ndarray:
        batch_size, length = bits.shape
        width = -(-length // 2)
        roots = np.zeros((batch_size, width), dtype=np.int64)
        for b in range(batch_size):
            root = math.isqrt(int((bits[b] + ord("0")).astype(np.uint8).tobytes(), 2))
            digits = format(root, f"0{width}b").encode()
            roots[b] = np.frombuffer(digits, dtype=np.uint8) - ord("0")
        return roots
