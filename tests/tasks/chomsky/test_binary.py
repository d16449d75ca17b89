"""Binary numbers of the authors' addition and multiplication: little-endian bits to
and from Python integers, operands nonzero at every split, the short-string rule."""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.binary import SEP, answers, operands, short_numbers, to_bits, to_int


def test_bits_and_integers_round_trip() -> None:
    assert to_bits(0).tolist() == [0] and to_bits(6).tolist() == [0, 1, 1]
    assert to_int(np.array([0, 1, 1, 0, 0])) == 6
    big = 2**499 + 12345
    assert to_int(to_bits(big)) == big and len(to_bits(big)) == 500


def test_operands_split_uniformly_and_are_never_zero() -> None:
    strings, n, m = operands(np.random.default_rng(0), 4000, 6)
    splits = (strings == SEP).argmax(axis=1)
    assert set(np.unique(splits)) == {1, 2, 3, 4}
    assert np.bincount(splits)[1:].min() > 900  # 1000 each expected
    assert min(n) >= 1 and min(m) >= 1
    for row, a, b, k in zip(strings, n, m, splits, strict=True):
        assert to_int(row[:k]) == a and to_int(row[k + 1 :]) == b
    # width 1 can only hold 1
    assert {a for a, k in zip(n, splits, strict=True) if k == 1} == {1}


def test_short_numbers_follow_the_authors_range() -> None:
    rng = np.random.default_rng(0)
    assert short_numbers(rng, 5, 1).tolist() == [[0]] * 5
    values = {tuple(row) for row in short_numbers(rng, 300, 2).tolist()}
    assert values == {(0, 0), (1, 0), (0, 1)}


def test_answers_end_with_the_token_then_zeros() -> None:
    assert answers([6, 0, 1], 5).tolist() == [[0, 1, 1, 2, 0], [0, 2, 0, 0, 0], [1, 2, 0, 0, 0]]
