"""Solve Equation: a bracketed +/- expression with one residue replaced by x, = and its
value; the class is the one residue mod m that satisfies it."""

from __future__ import annotations

import pytest

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, parse_expression, sampled


def _text(string: list[int], modulus: int) -> list[str]:
    return [str(s) if s < modulus else "+-()x="[s - modulus] for s in string]


@pytest.mark.parametrize("modulus", [5, 3])
def test_the_class_is_the_only_solution(modulus: int) -> None:
    task = make_task("solve_equation", modulus=modulus)
    for length in [*range(3, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 16, seed=length):
            text = _text(string, modulus)
            assert len(text) == length and text.count("x") == 1 and text[-2] == "="
            assert "*" not in text
            value = int(text[-1])
            solutions = [
                x for x in range(modulus) if parse_expression(text[:-2], x) % modulus == value
            ]
            assert answer == solutions  # one solution, the class


def test_x_takes_the_first_residue_from_a_uniform_position() -> None:
    # (d op d): the position drawn is one of 5, and x takes the first residue at or
    # after it, wrapping round: the first residue for 3 of them, the second for 2
    task = make_task("solve_equation")
    places = [s.index(task.unknown) for s, _ in sampled(task, 7, 2000)]
    assert set(places) == {1, 3} and 1100 < places.count(1) < 1300


def test_the_authors_rule_below_three_symbols() -> None:
    task = make_task("solve_equation")
    for length in (1, 2):
        assert sampled(task, length, 5) == [([0] * length, [0])] * 5


def test_an_example() -> None:
    task = make_task("solve_equation")
    plus, opened, closed, x, equals = 5, 7, 8, 9, 10
    # (x + 3) = 1 -> x = 3 mod 5
    assert answer_to(task, [opened, x, plus, 3, closed, equals, 1], count=20000) == [3]
