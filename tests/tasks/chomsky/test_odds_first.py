"""Odds First: the symbols at positions 1, 3, 5, ... (counted from 1), then those at
2, 4, 6, ...: the authors' stated definition and examples (their code emits the two
halves the other way round)."""

from __future__ import annotations

import pytest

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled


@pytest.mark.parametrize("vocab_size", [2, 3])
def test_the_odd_positions_come_first(vocab_size: int) -> None:
    task = make_task("odds_first", vocab_size=vocab_size)
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 16, seed=length):
            odd = [s for position, s in enumerate(string, start=1) if position % 2 == 1]
            even = [s for position, s in enumerate(string, start=1) if position % 2 == 0]
            assert answer == odd + even


def test_the_authors_examples() -> None:
    task = make_task("odds_first")
    assert answer_to(task, digits("00110101")) == digits("01000111")
    assert answer_to(task, digits("110")) == digits("101")
