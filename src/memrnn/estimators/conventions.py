"""The scikit-learn conventions the estimators share: their tags, where random numbers
come from, and what ``score`` reports.

``random_state`` takes an int seed, a ``numpy.random.Generator``, a legacy
``numpy.random.RandomState`` or None, as scikit-learn's estimators do. An int seed gives
the same numbers as it always has; a Generator is drawn from as it is (the reservoirs)
or gives a seed (the networks); a RandomState gives a seed, one draw of
``randint``, so that fitting twice from one RandomState fits two different models,
as scikit-learn's own estimators do.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.metrics import r2_score
from sklearn.utils import Tags

from memrnn.validation import check_int, check_random_state

AnyRandomState = int | np.integer | np.random.Generator | np.random.RandomState | None
"""A seed (an int >= 0), a ``numpy.random.Generator``, a ``numpy.random.RandomState``, or
None for fresh entropy."""

_SEEDS = 2**63  # seeds are drawn from [0, 2**63), as the networks have always drawn them


def as_generator(name: str, value: object) -> np.random.Generator:
    """The generator that draws a reservoir's weights: a seed starts a new one (as
    :func:`memrnn.validation.check_random_state` does), a Generator is used as it is, a
    RandomState seeds a new one by one draw; ValueError naming ``name`` for anything
    else."""
    if isinstance(value, np.random.RandomState):
        return np.random.default_rng(_draw_seed(value))
    return check_random_state(name, value)


def as_seed(name: str, value: object) -> int:
    """One int seed (for torch and the word draws): a seed as it is, one draw from a
    Generator, a RandomState or fresh entropy (None); ValueError naming ``name`` for
    anything else."""
    if isinstance(value, np.random.RandomState):
        return _draw_seed(value)
    if value is None or isinstance(value, np.random.Generator):
        return int(check_random_state(name, value).integers(_SEEDS))
    return check_int(name, value, 0)


def _draw_seed(random_state: np.random.RandomState) -> int:
    return int(random_state.randint(np.iinfo(np.int64).max, dtype=np.int64))


def pooled_r2(targets: Sequence[np.ndarray], predictions: Sequence[np.ndarray]) -> float:
    """R^2 of every time step of every sequence pooled, averaged over the outputs."""
    Y = np.concatenate([np.asarray(y).reshape(len(y), -1) for y in targets])
    P = np.concatenate([np.asarray(p).reshape(len(p), -1) for p in predictions])
    return float(r2_score(Y, P))


def pooled_accuracy(targets: Sequence[np.ndarray], predictions: Sequence[np.ndarray]) -> float:
    """The share of outputs, over every step of every sequence, predicted exactly."""
    Y = np.concatenate([np.asarray(y).reshape(len(y), -1) for y in targets])
    P = np.concatenate([np.asarray(p).reshape(len(p), -1) for p in predictions])
    return float(np.mean(Y == P))


def negative_mae(targets: Sequence[np.ndarray], predictions: Sequence[np.ndarray]) -> float:
    """Minus the mean absolute error over every output of every step of every sequence
    (Paassen, Schulz, Hammer 2021 report the error; higher is better for ``score``)."""
    Y = np.concatenate([np.asarray(y).reshape(len(y), -1) for y in targets])
    P = np.concatenate([np.asarray(p).reshape(len(p), -1) for p in predictions])
    return -float(np.mean(np.abs(Y - P)))


def sequence_tags(tags: Tags) -> Tags:
    """The tags every estimator over sequences shares: X is one series (a 2-D array) or
    many (a list of them, or a 3-D array), dense; y is required."""
    tags.input_tags.two_d_array = True
    tags.input_tags.three_d_array = True
    tags.input_tags.sparse = False
    tags.target_tags.required = True
    return tags


def sequence_regressor_tags(tags: Tags) -> Tags:
    """The tags of an estimator that maps sequences to sequences of L real outputs: any
    L (a 1-D target is one output), as ``sequence_tags``. Its scores on scikit-learn's
    check data are poor by design: those rows are read as the steps of one series, in
    an order that carries no information (:mod:`memrnn.estimators.checks`)."""
    tags = sequence_tags(tags)
    tags.target_tags.multi_output = True
    tags.target_tags.single_output = True
    if tags.regressor_tags is not None:
        tags.regressor_tags.poor_score = True
    return tags


def stack_machine_tags(tags: Tags) -> Tags:
    """The tags of a stack machine: as ``sequence_tags``; its targets are stack teachers,
    not an array, so it is neither a classifier nor a regressor to scikit-learn."""
    return sequence_tags(tags)
