"""Modular Arithmetic without brackets: residues and +, -, * alternating, odd lengths
only (an even one is one less, the authors' rule), the value mod m with * first."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, sampled


def _tokens(string: list[int], modulus: int) -> list[str]:
    return [str(s) if s < modulus else "+-*_"[s - modulus] for s in string]


@pytest.mark.parametrize("modulus", [5, 2, 11])
def test_the_class_is_pythons_value_mod_m(modulus: int) -> None:
    task = make_task("modular_arithmetic", modulus=modulus)
    for length in [*range(1, 41), 41, 200, 499]:
        for string, answer in sampled(task, length, 32, seed=length):
            assert len(string) == length - (length % 2 == 0)
            tokens = _tokens(string, modulus)
            assert all(t in ("+", "-", "*") for t in tokens[1::2])
            assert all(t.isdigit() for t in tokens[0::2])
            assert answer == [eval(" ".join(tokens)) % modulus]


def test_an_even_length_is_rounded_down_to_odd() -> None:
    task = make_task("modular_arithmetic")
    assert [len(s) for s, _ in sampled(task, 2, 4)] == [1] * 4
    assert [len(s) for s, _ in sampled(task, 500, 2)] == [499] * 2
    batch = task.sample_batch(np.random.default_rng(0), 3, 40, 40)
    assert batch.inputs.shape == (3, 40)  # 39 symbols and the answer step


def test_the_authors_examples() -> None:
    task = make_task("modular_arithmetic")
    plus, minus, times = 5, 6, 7
    assert answer_to(task, [1, plus, 2, times, 3]) == [2]
    assert answer_to(task, [1, minus, 1, minus, 1]) == [4]
