"""Missing Duplicate: a binary string w written twice with one symbol replaced by the
placeholder (2), padded with 3 at an odd length; the class is the replaced bit."""

from __future__ import annotations

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled

PLACEHOLDER, PADDING = 2, 3


def test_the_class_is_the_missing_bit() -> None:
    task = make_task("missing_duplicate")
    for length in [*range(2, 41), 41, 200, 500]:
        half = length // 2
        for string, answer in sampled(task, length, 32, seed=length):
            assert string[2 * half :] == [PADDING] * (length % 2)
            doubled = string[: 2 * half]
            assert doubled.count(PLACEHOLDER) == 1 and answer in ([0], [1])
            doubled[doubled.index(PLACEHOLDER)] = answer[0]
            assert doubled[:half] == doubled[half:] and set(doubled) <= {0, 1}


def test_the_placeholder_lands_anywhere_in_ww() -> None:
    task = make_task("missing_duplicate")
    places = {s.index(PLACEHOLDER) for s, _ in sampled(task, 9, 400)}
    assert places == set(range(8))


def test_the_authors_rule_for_one_symbol() -> None:
    assert sampled(make_task("missing_duplicate"), 1, 4) == [([1], [1])] * 4


def test_the_authors_examples() -> None:
    task = make_task("missing_duplicate")
    assert answer_to(task, digits("01100210")) == [1]
    assert answer_to(task, digits("1011213")) == [0]
