"""A run's random streams, each its own generator drawn from the run's seed, so that one
stream's draws never move another's: changing how often a run evaluates changes nothing
it trains on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

Stream = Literal["data", "eval", "artifacts"]
_LABELS: dict[Stream, int] = {"data": 1, "eval": 2, "artifacts": 3}


def stream(seed: int, name: Stream, *more: int) -> np.random.Generator:
    """The generator of the stream ``name`` of a run with ``seed``, keyed further by
    ``more`` (an evaluation's step): ``np.random.default_rng([seed, label, *more])``."""
    return np.random.default_rng([seed, _LABELS[name], *more])


def data_rng(seed: int) -> np.random.Generator:
    """The generator of a run's training batches."""
    return stream(seed, "data")


def eval_rng(seed: int) -> Callable[[int], np.random.Generator]:
    """The generator of each evaluation's data, by the step it is taken at."""
    return lambda step: stream(seed, "eval", step)


def artifacts_rng(seed: int) -> np.random.Generator:
    """The generator of what a run makes once it is trained: its traces and figures, or
    the matrix's range evaluation."""
    return stream(seed, "artifacts")
