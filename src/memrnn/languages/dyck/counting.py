"""Counting Dyck-(k,m) strings (Hewitt et al. 2020), exactly, with Python integers.

:func:`count_strings` gives how many strings have each length; :func:`push_probabilities`
weighs the sampler's actions by how many ways the walk can still end at a length in range,
which is what lets :mod:`memrnn.languages.dyck.sampler` draw from Appendix H's law
conditioned on the length without rejecting whole strings.

Lengths count the end symbol: Section 3.1 writes "w_{1:T} in Sigma* omega, where T is the
string length", and Table 2's training range starts at 1, the lone end symbol. So every
length is odd.

>>> count_strings(2, 2, 5)
8
"""

from __future__ import annotations

import functools

from memrnn.validation import check_int, check_int_range


def prefix_counts(k: int, m: int, n: int) -> list[int]:
    """How many bracket strings of ``n`` tokens are prefixes of Dyck-(k,m) strings, by depth.

    Entry d counts those that leave d brackets unclosed (0 <= d <= m). Exact Python ints.

    Raises:
        ValueError: ``k`` or ``m`` is not an int >= 1, or ``n`` not an int >= 0.
    """
    k, m, n = check_int("k", k, 1), check_int("m", m, 1), check_int("n", n, 0)
    counts = [1] + [0] * m
    for _ in range(n):
        new = [0] * (m + 1)
        for d, c in enumerate(counts):
            if d < m:
                new[d + 1] += c * k  # any of k open brackets
            if d:
                new[d - 1] += c  # only the close of the top
        counts = new
    return counts


def count_strings(k: int, m: int, length: int) -> int:
    """How many Dyck-(k,m) strings have exactly ``length`` tokens, the end symbol included.

    Zero for even lengths and for 0. Exact (Python ints).

    Raises:
        ValueError: ``k`` or ``m`` is not an int >= 1, or ``length`` not an int >= 0.
    """
    length = check_int("length", length, 0)
    if length == 0:
        return 0
    return prefix_counts(k, m, length - 1)[0]


def check_length_range(
    min_length: object, max_length: object, names: tuple[str, str] = ("min_length", "max_length")
) -> tuple[int, int]:
    """``(min_length, max_length)`` as ints; ValueError naming the culprit unless it is a
    range 0 <= min <= max that holds some string, that is, an odd length."""
    lo, hi = check_int_range(names, min_length, max_length)
    if (lo | 1) > hi:
        raise ValueError(
            f"{names[0]}, {names[1]}: no Dyck-(k,m) string has a length from {lo} to {hi} "
            "(lengths are odd: bracket pairs plus the end symbol)"
        )
    return lo, hi


MAX_TABLE_BYTES = 2**30
"""The most memory ``push_probabilities`` may take for its exact integers (1 GiB); Table
2's longest range (m = 5, lengths to 360) takes about 100 KiB."""


def table_bytes(m: int, max_length: int) -> int:
    """About how much memory ``push_probabilities`` takes for depth bound m and lengths up
    to ``max_length``: (max_length + 1)(m + 1) Python ints, 36 bytes each plus 4 bytes per
    30 bits, of up to max_length - n bits after n tokens."""
    cells = (max_length + 1) * (m + 1)
    return 36 * cells + (m + 1) * max_length * max_length // 15


def check_table_size(m: int, max_length: int, name: str = "max_length") -> None:
    """Raise ValueError naming m and ``name`` when ``table_bytes`` exceeds
    ``MAX_TABLE_BYTES``, before anything is allocated."""
    needed = table_bytes(m, max_length)
    if needed > MAX_TABLE_BYTES:
        raise ValueError(
            f"m, {name}: weighing the sampler's actions for m = {m} and lengths up to "
            f"{max_length} needs about {needed / 2**20:,.0f} MiB of exact integers, over the "
            f"limit of {MAX_TABLE_BYTES / 2**20:,.0f} MiB; choose a smaller m or max_length"
        )


@functools.lru_cache(maxsize=64)
def push_probabilities(m: int, lo: int, hi: int) -> tuple[tuple[float, ...], ...]:
    """p[n][d]: the probability of a push after n tokens at depth d, given the final length
    lies in [lo, hi] (the alternative is end at d = 0, pop otherwise).

    w[n][d] = 2^(hi - n) * P(the length ends in range | n tokens, depth d): an integer,
    since every step of Equation H.2 has probability 1/2 or 1.

    Raises:
        ValueError: the table would exceed ``MAX_TABLE_BYTES`` (``check_table_size``).
    """
    check_table_size(m, hi)
    w = [[0] * (m + 1) for _ in range(hi + 1)]  # w[hi] = 0: the end symbol must still come
    for n in range(hi - 1, -1, -1):
        below = w[n + 1]
        w[n][0] = (1 << (hi - n - 1) if lo <= n + 1 else 0) + below[1]
        for d in range(1, m):
            w[n][d] = below[d + 1] + below[d - 1]
        w[n][m] = 2 * below[m - 1]
    # Exact integers divide to correctly rounded floats: 0 and 1 stay exact, so a branch of
    # probability 0 is never taken.
    return tuple(
        tuple(
            (w[n + 1][d + 1] / w[n][d] if w[n][d] else 0.0) if d < m else 0.0 for d in range(m + 1)
        )
        for n in range(hi)
    )
