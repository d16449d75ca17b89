"""Uniform draws taken ahead: the same numbers as rng.random(), and rng left after them."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.languages.uniforms import Uniforms


def _pair(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    # one 32-bit draw first, so that the generator holds half of a 64-bit output
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    a.integers(0, 7)
    b.integers(0, 7)
    return a, b


@pytest.mark.parametrize("seed", range(4))
def test_the_draws_and_the_state_after_them_are_those_of_rng_random(seed: int) -> None:
    ahead, literal = _pair(seed)
    rng = np.random.default_rng([seed, 1])
    with Uniforms(ahead) as uniforms:
        for _ in range(30):
            n = int(rng.integers(1, 900))
            uniforms.reserve(n)
            used = int(rng.integers(0, n + 1))
            assert [uniforms.next() for _ in range(used)] == [literal.random() for _ in range(used)]
    assert ahead.integers(0, 7, size=5).tolist() == literal.integers(0, 7, size=5).tolist()
    assert ahead.random() == literal.random()


def test_rng_is_settled_when_the_block_raises() -> None:
    ahead, literal = _pair(0)
    with pytest.raises(KeyError), Uniforms(ahead) as uniforms:
        uniforms.reserve(10)
        first = uniforms.next()
        raise KeyError("stop")
    assert first == literal.random()
    assert ahead.integers(0, 7) == literal.integers(0, 7)


def test_past_the_reserve_next_raises_and_unused_draws_leave_rng_alone() -> None:
    ahead, literal = _pair(1)
    with Uniforms(ahead) as uniforms:
        with pytest.raises(IndexError):
            uniforms.next()
        uniforms.reserve(3)
    assert ahead.bit_generator.state == literal.bit_generator.state


@pytest.mark.parametrize(
    "kind", [np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64]
)
def test_every_bit_generator_is_left_where_rng_random_leaves_it(kind: type) -> None:
    ahead, literal = np.random.Generator(kind(3)), np.random.Generator(kind(3))
    ahead.integers(0, 7)
    literal.integers(0, 7)
    with Uniforms(ahead) as uniforms:
        uniforms.reserve(700)
        assert [uniforms.next() for _ in range(600)] == literal.random(600).tolist()
    assert ahead.integers(0, 7, size=5).tolist() == literal.integers(0, 7, size=5).tolist()


def test_entered_again_it_starts_from_where_rng_stands_then() -> None:
    ahead, literal = _pair(2)
    uniforms = Uniforms(ahead)
    with pytest.raises(RuntimeError, match="with block"):
        uniforms.reserve(1)
    for _ in range(2):
        with uniforms:
            uniforms.reserve(5)
            assert uniforms.next() == literal.random()
        assert ahead.integers(0, 7) == literal.integers(0, 7)  # drawn between the blocks
