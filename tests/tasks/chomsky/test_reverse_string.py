"""Reverse String: the string reversed."""

from __future__ import annotations

import pytest

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled


@pytest.mark.parametrize("vocab_size", [2, 7])
def test_the_answer_is_the_string_reversed(vocab_size: int) -> None:
    task = make_task("reverse_string", vocab_size=vocab_size)
    symbols = set()
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 16, seed=length):
            assert answer == string[::-1]
            symbols |= set(string)
    assert symbols == set(range(vocab_size))


def test_the_authors_example() -> None:
    assert answer_to(make_task("reverse_string"), digits("011010")) == digits("010110")


def test_a_bad_vocabulary_is_named() -> None:
    with pytest.raises(ValueError, match="vocab_size: expected an int >= 2, got 1"):
        make_task("reverse_string", vocab_size=1)
