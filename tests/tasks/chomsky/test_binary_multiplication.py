"""Binary Multiplication: ``n * m`` of nonzero little-endian numbers, the product
little-endian without trailing zeros and the termination token, scored up to it; the
authors' rule for one and two symbols."""

from __future__ import annotations

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled

TIMES, END = 2, 2


def _number(bits: list[int]) -> int:
    return sum(bit << i for i, bit in enumerate(bits))


def _little_endian(value: int) -> list[int]:
    return [int(c) for c in reversed(f"{value:b}")]


def test_the_answer_is_the_product() -> None:
    task = make_task("binary_multiplication")
    for length in [*range(3, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 32, seed=length):
            assert string.count(TIMES) == 1
            split = string.index(TIMES)
            n, m = string[:split], string[split + 1 :]
            assert n and m and _number(n) > 0 and _number(m) > 0
            assert answer == [*_little_endian(_number(n) * _number(m)), END]
            assert len(answer) <= length


def test_the_authors_rule_for_short_strings() -> None:
    task = make_task("binary_multiplication")
    assert sampled(task, 1, 4) == [([0], [END])] * 4
    rows = sampled(task, 2, 200)
    assert {tuple(s) for s, _ in rows} == {(0, 0), (1, 0), (0, 1)}
    assert {tuple(a) for _, a in rows} == {(0, END)}


def test_the_authors_example() -> None:
    task = make_task("binary_multiplication")
    # 001 * 01101 = 4 * 22 = 88 = 0001101
    assert answer_to(task, [*digits("001"), TIMES, *digits("01101")], 40000) == [
        *digits("0001101"),
        END,
    ]
