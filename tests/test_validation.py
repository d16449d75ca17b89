"""The torch-free argument checks: what they accept, what they return, and messages that
name the argument and say what was expected."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from memrnn.validation import (
    check_choice,
    check_distribution,
    check_flag,
    check_float,
    check_generator,
    check_int,
    check_int_range,
    check_random_state,
    check_sizes,
    is_int,
    is_number,
)


def test_is_int_and_is_number() -> None:
    assert is_int(3) and is_int(np.int64(3)) and not is_int(True) and not is_int(3.0)
    assert is_number(3) and is_number(2.5) and is_number(np.float32(1)) and is_number(np.int8(1))
    assert not is_number(True) and not is_number("1") and not is_number(None)


def test_accepted_values_come_back_as_python_types() -> None:
    value = check_int("n", np.int64(4), 1, 4)
    assert value == 4 and type(value) is int
    number = check_float("p", np.float32(0.5), above=0, maximum=1)
    assert number == 0.5 and type(number) is float
    assert check_float("x", 3) == 3.0
    assert check_int_range(("lo", "hi"), 2, 2, 1) == (2, 2)
    assert check_choice("kind", "lstm", ("rnn", "lstm")) == "lstm"
    assert check_distribution("b", (0.25, np.float64(0.75)), 2) == (0.25, 0.75)
    rng = np.random.default_rng(0)
    assert check_generator("rng", rng) is rng


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: check_int("k", 0, 1), "k: expected an int >= 1, got 0"),
        (lambda: check_int("k", True, 1), "k: expected an int >= 1, got True"),
        (lambda: check_int("k", 2.0), "k: expected an int, got 2.0"),
        (lambda: check_int("pairs", 27, 1, 26), r"pairs: expected an int in 1\.\.26, got 27"),
        (lambda: check_int("n", 9, maximum=8), "n: expected an int <= 8, got 9"),
        (lambda: check_float("lr", float("nan")), "lr: expected a finite number, got nan"),
        (lambda: check_float("lr", float("inf"), 0), "lr: expected a finite number >= 0, got inf"),
        (lambda: check_float("lr", "0.1"), "lr: expected a finite number, got '0.1'"),
        (lambda: check_float("lr", True), "lr: expected a finite number, got True"),
        (lambda: check_float("p", 0, above=0, maximum=1), r"p: expected .* in \(0, 1\], got 0"),
        (lambda: check_float("r", 0.5, above=0, below=0.5), r"in \(0, 0\.5\), got 0\.5"),
        (lambda: check_float("x", -1, 0), "x: expected a finite number >= 0, got -1"),
        (lambda: check_float("x", 0, above=0), "x: expected a finite number > 0, got 0"),
        (lambda: check_float("x", 2, below=2), "x: expected a finite number < 2, got 2"),
        (lambda: check_float("x", 3, maximum=2), "x: expected a finite number <= 2, got 3"),
        (lambda: check_float("x", 1, 0, above=0), "check_float: give one lower"),
        (lambda: check_choice("kind", "gru", ("rnn", "lstm")), "kind: expected one of rnn, lstm"),
        (lambda: check_int_range(("lo", "hi"), 3, 2), "lo 3 is greater than hi 2"),
        (lambda: check_int_range(("lo", "hi"), 0, 2, 1), "lo: expected an int >= 1, got 0"),
        (lambda: check_int_range(("lo", "hi"), 1, 2.5), "hi: expected an int >= 0, got 2.5"),
        (lambda: check_distribution("b", (0.5, 0.6), 2), "b: expected 2 positive numbers"),
        (lambda: check_distribution("b", (1.0, 0.0), 2), "b: expected 2 positive numbers"),
        (lambda: check_distribution("b", (1.0,), 2), "b: expected 2 positive numbers"),
        (lambda: check_distribution("b", "ab", 2), "b: expected 2 positive numbers"),
        (lambda: check_generator("rng", 0), "rng: expected a numpy.random.Generator, got 0"),
        (lambda: check_sizes(a=1, b=0, c=-1), "b: expected an int >= 1, got 0"),
        (lambda: check_sizes(a=np.int64(2), b=True), "b: expected an int >= 1, got True"),
        (lambda: check_random_state("seed", -1), "seed: expected an int >= 0, a numpy.random"),
        (lambda: check_random_state("seed", 1.0), "seed: expected an int >= 0, .* got 1.0"),
        (lambda: check_random_state("seed", True), "seed: expected an int >= 0, .* got True"),
    ],
)
def test_bad_values_are_refused_by_name(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_a_random_state_is_a_seed_a_generator_or_none() -> None:
    rng = np.random.default_rng(5)
    assert check_random_state("random_state", rng) is rng
    seeded = check_random_state("random_state", np.int64(7)).random(3)
    assert np.array_equal(seeded, np.random.default_rng(7).random(3))
    fresh = check_random_state("random_state", None)
    assert isinstance(fresh, np.random.Generator) and fresh is not rng
    before = np.random.get_state()[1].copy()  # type: ignore[index]  # noqa: NPY002
    check_random_state("random_state", None).random()  # leaves the global state alone
    assert np.array_equal(np.random.get_state()[1], before)  # type: ignore[index]  # noqa: NPY002


@pytest.mark.parametrize("value", [0, 1, "yes", None, 1.0])
def test_a_switch_must_be_a_bool(value: object) -> None:
    with pytest.raises(ValueError, match=f"reencode: expected True or False, got {value!r}"):
        check_flag("reencode", value)
    assert check_flag("reencode", True) is True and check_flag("reencode", False) is False
