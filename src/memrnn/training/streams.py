"""The random streams of a run, each derived from the run's seed, so that a resumed run
is identical to an uninterrupted one and evaluating never disturbs training: one NumPy
generator draws the training batches (its state is checkpointed), every evaluation draws
its data from a generator seeded by (seed, step), and what is computed after training
(test sets, range evaluations, samples) draws from a third."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_DATA, _EVAL, _AFTER = 1, 2, 3  # labels of np.random.default_rng([seed, label, ...])


def data_rng(seed: int) -> np.random.Generator:
    """The generator of a run's training batches."""
    return np.random.default_rng([seed, _DATA])


def eval_rng(seed: int) -> Callable[[int], np.random.Generator]:
    """The generator of each evaluation's data, by the step it is taken at."""
    return lambda step: np.random.default_rng([seed, _EVAL, step])


def after_rng(seed: int) -> np.random.Generator:
    """The generator of what a run computes once trained (its test data, its range
    evaluation, its samples)."""
    return np.random.default_rng([seed, _AFTER])
