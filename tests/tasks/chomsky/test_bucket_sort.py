"""Bucket Sort: the string's symbols in increasing order."""

from __future__ import annotations

import pytest

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled


@pytest.mark.parametrize("vocab_size", [5, 2])
def test_the_answer_is_the_string_sorted(vocab_size: int) -> None:
    task = make_task("bucket_sort", vocab_size=vocab_size)
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 16, seed=length):
            assert answer == sorted(string) and max(string) < vocab_size


def test_the_authors_examples() -> None:
    assert answer_to(make_task("bucket_sort", vocab_size=2), digits("1110001")) == digits("0001111")
    assert answer_to(make_task("bucket_sort"), digits("10204"), count=20000) == digits("00124")
