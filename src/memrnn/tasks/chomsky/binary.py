"""Binary numbers for Binary Addition and Binary Multiplication (Delétang et al. 2023,
Appendix A): the operand strings the authors draw and the answers they expect.

As ``_sample_expressions_and_results`` in the authors' ``tasks/cs/binary_addition.py``:
for L >= 3 the string is ``n SEP m``, n of k bits and m of L - 1 - k bits with k uniform
in 1 .. L-2, each number uniform over the nonzero values of its width, both written
little-endian (least significant bit first) to their full width; an answer is a number
little-endian without trailing zeros ("0" for zero), the termination token, then zeros.
Python integers carry the arithmetic: the operands reach 2^498 at L = 500.

Symbols: bits 0, 1 and SEP 2 (+ or *); answer classes bits 0, 1 and END 2.
"""

from __future__ import annotations

import numpy as np

SEP = 2
END = 2


def to_int(bits: np.ndarray) -> int:
    """The number whose little-endian bits are ``bits`` (1-D, 0/1)."""
    return int((bits[::-1] + ord("0")).astype(np.uint8).tobytes(), 2)


def to_bits(value: int) -> np.ndarray:
    """The little-endian bits of ``value`` >= 0, without trailing zeros: [0] for 0."""
    return np.frombuffer(format(value, "b").encode()[::-1], dtype=np.uint8).astype(np.int64) - 48


def operands(
    rng: np.random.Generator, batch_size: int, length: int
) -> tuple[np.ndarray, list[int], list[int]]:
    """``batch_size`` strings ``n SEP m`` of ``length`` >= 3 symbols, and the numbers n
    and m of each."""
    first = rng.integers(1, length - 1, size=(batch_size, 1))  # n's width k
    position = np.arange(length)
    strings = rng.integers(0, 2, size=(batch_size, length), dtype=np.int64)
    while True:  # each number uniform over its nonzero values: redraw a row with a zero
        ones = strings == 1
        zero = ~(ones & (position < first)).any(axis=1) | ~(ones & (position > first)).any(axis=1)
        if not zero.any():
            break
        strings[zero] = rng.integers(0, 2, size=(int(zero.sum()), length), dtype=np.int64)
    rows = np.arange(batch_size)
    strings[rows, first[:, 0]] = SEP
    n = [to_int(strings[b, : first[b, 0]]) for b in rows]
    m = [to_int(strings[b, first[b, 0] + 1 :]) for b in rows]
    return strings, n, m


def short_numbers(rng: np.random.Generator, batch_size: int, length: int) -> np.ndarray:
    """The authors' strings for ``length`` <= 2: one number of ``length`` little-endian
    bits, uniform in 0 .. 2^length - 2 (their ``randint(0, 2**length - 1)``), no SEP."""
    numbers = rng.integers(0, 2**length - 1, size=(batch_size, 1))
    return (numbers >> np.arange(length)) & 1


def answers(values: list[int], width: int) -> np.ndarray:
    """(B, ``width``) answers: each value's little-endian bits, ``END``, then zeros."""
    out = np.zeros((len(values), width), dtype=np.int64)
    for b, value in enumerate(values):
        bits = to_bits(value)
        out[b, : len(bits)] = bits
        out[b, len(bits)] = END
    return out
