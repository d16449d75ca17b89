"""Modular Arithmetic with brackets: a random expression of the authors' grammar of
exactly the length asked (with * as in their experiments), its value mod m."""

from __future__ import annotations

import pytest

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, parse_expression, sampled


def _text(string: list[int], modulus: int) -> list[str]:
    return [str(s) if s < modulus else "+-*()x"[s - modulus] for s in string]


@pytest.mark.parametrize(("modulus", "times"), [(5, True), (5, False), (7, True)])
def test_the_class_is_the_value_mod_m(modulus: int, times: bool) -> None:
    task = make_task("modular_arithmetic_brackets", modulus=modulus, times=times)
    operators = set()
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 16, seed=length):
            assert len(string) == length
            text = _text(string, modulus)
            assert "x" not in text
            operators |= set(text) & set("+-*")
            assert answer == [parse_expression(text) % modulus]
    assert operators == (set("+-*") if times else set("+-"))


def test_the_alphabet_keeps_the_authors_size() -> None:
    task = make_task("modular_arithmetic_brackets")
    assert (task.alphabet_size, task.input_size, task.output_size) == (11, 12, 5)


def test_an_example() -> None:
    task = make_task("modular_arithmetic_brackets")
    plus, minus, times, opened, closed = 5, 6, 7, 8, 9
    # (3 * (-2)) = -6 = 4 mod 5
    assert answer_to(task, [opened, 3, times, opened, minus, 2, closed, closed], 20000) == [4]
    assert answer_to(task, [opened, 1, plus, 4, closed]) == [0]
