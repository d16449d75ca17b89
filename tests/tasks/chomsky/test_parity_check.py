"""Parity Check: the number of ones of a binary string, mod 2."""

from __future__ import annotations

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled


def test_the_class_is_the_parity_of_the_ones() -> None:
    task = make_task("parity_check")
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 32, seed=length):
            assert set(string) <= {0, 1}
            assert answer == [string.count(1) % 2]


def test_the_authors_examples() -> None:
    task = make_task("parity_check")
    assert answer_to(task, digits("1010100")) == [1]
    assert answer_to(task, digits("01111")) == [0]
