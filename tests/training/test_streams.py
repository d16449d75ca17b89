"""A run's random streams keep the keys every stored run was drawn with, and never
share draws."""

from __future__ import annotations

import numpy as np

from memrnn.training.streams import artifacts_rng, data_rng, eval_rng, stream


def _same(a: np.random.Generator, b: np.random.Generator) -> bool:
    return bool(np.array_equal(a.integers(0, 2**31, 8), b.integers(0, 2**31, 8)))


def test_the_streams_keep_their_keys() -> None:
    assert _same(data_rng(7), np.random.default_rng([7, 1]))
    assert _same(eval_rng(7)(300), np.random.default_rng([7, 2, 300]))
    assert _same(artifacts_rng(7), np.random.default_rng([7, 3]))
    assert _same(stream(7, "eval"), np.random.default_rng([7, 2]))


def test_the_streams_are_apart() -> None:
    draws = [data_rng(0), eval_rng(0)(0), eval_rng(0)(1), artifacts_rng(0), data_rng(1)]
    firsts = {int(g.integers(0, 2**62)) for g in draws}
    assert len(firsts) == len(draws)
