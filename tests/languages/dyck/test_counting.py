"""The exact counts against brute force and closed forms."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import pytest

from memrnn.languages.dyck import count_strings, prefix_counts
from memrnn.languages.dyck.counting import check_table_size, push_probabilities, table_bytes
from tests.languages.dyck.helpers import brackets


@pytest.mark.parametrize(("k", "longest"), [(1, 12), (2, 8), (3, 6)])
def test_counts_match_brute_force(k: int, longest: int) -> None:
    for n in range(longest + 1):
        whole: Counter[int] = Counter()  # balanced strings by their greatest depth
        prefixes: Counter[tuple[int, int]] = Counter()  # (greatest depth, final depth)
        for tokens in brackets(k, n):
            stack: list[int] = []
            deepest = 0
            for x in tokens:
                if x < k:
                    stack.append(x)
                    deepest = max(deepest, len(stack))
                elif stack and stack[-1] == x - k:
                    stack.pop()
                else:
                    break
            else:
                prefixes[deepest, len(stack)] += 1
                if not stack:
                    whole[deepest] += 1
        for m in (1, 2, 3):
            assert count_strings(k, m, n + 1) == sum(c for d, c in whole.items() if d <= m)
            assert prefix_counts(k, m, n) == [
                sum(c for (top, d), c in prefixes.items() if top <= m and d == final)
                for final in range(m + 1)
            ]


@pytest.mark.parametrize("k", [1, 2, 3, 5, 128])
def test_counts_match_closed_forms(k: int) -> None:
    assert count_strings(k, 3, 0) == 0
    for pairs in range(0, 31):
        n = 2 * pairs
        catalan = math.comb(n, pairs) // (pairs + 1)
        assert count_strings(k, max(pairs, 1), n + 1) == catalan * k**pairs  # depth never binds
        assert count_strings(k, 1, n + 1) == k**pairs
        assert count_strings(k, 2, n + 1) == (2 ** (pairs - 1) if pairs else 1) * k**pairs
        assert count_strings(k, 3, n + 2) == 0  # an odd number of brackets


def test_counts_are_exact_big_ints() -> None:
    value = count_strings(128, 5, 361)
    assert isinstance(value, int) and value > 2**1000
    assert value % 128**180 == 0  # every string of 180 pairs chooses 180 bracket types


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: count_strings(2, 2, -1), "length"),
        (lambda: prefix_counts(2, 2, -1), "n"),
    ],
)
def test_bad_arguments_name_themselves(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_the_table_size_is_known_before_it_is_made() -> None:
    # Table 2's longest range takes about 100 KiB; measured 28 MiB at m = 5, lengths 8001
    assert table_bytes(5, 360) < 2**17
    assert 20 * 2**20 < table_bytes(5, 8001) < 40 * 2**20
    check_table_size(5, 8001)
    with pytest.raises(ValueError, match=r"m, max_length: .* m = 1000000000 and lengths up to 9"):
        check_table_size(10**9, 9)
    with pytest.raises(ValueError, match=r"over the limit of 1,024 MiB"):
        push_probabilities(3, 1, 10**6)
