"""Compute Sqrt: floor(sqrt(n)) of a big-endian binary number n >= 1 of L bits, in
ceil(L / 2) big-endian bits."""

from __future__ import annotations

import math

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled


def test_the_answer_is_the_floor_of_the_square_root() -> None:
    task = make_task("compute_sqrt")
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 32, seed=length):
            n = int("".join(map(str, string)), 2)
            assert n >= 1
            assert len(answer) == math.ceil(length / 2)
            root = int("".join(map(str, answer)), 2)
            assert root * root <= n < (root + 1) ** 2


def test_a_number_of_one_bit_is_one() -> None:
    assert sampled(make_task("compute_sqrt"), 1, 4) == [([1], [1])] * 4


def test_the_authors_examples() -> None:
    task = make_task("compute_sqrt")
    assert answer_to(task, digits("100101")) == digits("110")  # 37 -> 6
    assert answer_to(task, digits("111")) == digits("10")  # 7 -> 2
