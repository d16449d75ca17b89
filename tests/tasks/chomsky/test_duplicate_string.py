"""Duplicate String: the string twice."""

from __future__ import annotations

import pytest

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled


@pytest.mark.parametrize("vocab_size", [2, 4])
def test_the_answer_is_the_string_twice(vocab_size: int) -> None:
    task = make_task("duplicate_string", vocab_size=vocab_size)
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 16, seed=length):
            assert answer == string + string and max(string) < vocab_size


def test_the_authors_example() -> None:
    assert answer_to(make_task("duplicate_string"), digits("101")) == digits("101101")
