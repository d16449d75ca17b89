"""Even Pairs: class 1 when a binary string holds an odd number of 01 and 10 pairs."""

from __future__ import annotations

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, digits, sampled


def _pairs(string: list[int]) -> int:
    text = "".join(map(str, string))
    return sum(text[i : i + 2] in ("01", "10") for i in range(len(text) - 1))


def test_the_class_is_the_parity_of_the_unequal_pairs() -> None:
    task = make_task("even_pairs")
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 32, seed=length):
            assert set(string) <= {0, 1}
            assert answer == [_pairs(string) % 2]


def test_the_authors_examples() -> None:
    task = make_task("even_pairs")
    assert answer_to(task, digits("001110")) == [0]
    assert answer_to(task, digits("0101001")) == [1]
