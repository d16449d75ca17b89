"""Binary Addition: ``n + m`` of nonzero little-endian numbers, the sum little-endian
without trailing zeros and the termination token, scored up to it; the authors' rule for
one and two symbols."""

from __future__ import annotations

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled

PLUS, END = 2, 2


def _number(bits: list[int]) -> int:
    return sum(bit << i for i, bit in enumerate(bits))


def _little_endian(value: int) -> list[int]:
    return [int(c) for c in reversed(f"{value:b}")]


def test_the_answer_is_the_sum() -> None:
    task = make_task("binary_addition")
    for length in [*range(3, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 32, seed=length):
            assert string.count(PLUS) == 1
            split = string.index(PLUS)
            n, m = string[:split], string[split + 1 :]
            assert n and m and _number(n) > 0 and _number(m) > 0
            assert answer == [*_little_endian(_number(n) + _number(m)), END]


def test_the_authors_rule_for_short_strings() -> None:
    task = make_task("binary_addition")
    assert sampled(task, 1, 4) == [([0], [0, END])] * 4
    rows = sampled(task, 2, 200)
    assert {tuple(s) for s, _ in rows} == {(0, 0), (1, 0), (0, 1)}  # 0 .. 2
    for string, answer in rows:
        assert answer == [*_little_endian(_number(string)), END]


def test_the_authors_example() -> None:
    task = make_task("binary_addition")
    # 001 + 01101 = 4 + 22 = 26 = 01011
    assert answer_to(task, [*digits("001"), PLUS, *digits("01101")], 40000) == [
        *digits("01011"),
        END,
    ]
