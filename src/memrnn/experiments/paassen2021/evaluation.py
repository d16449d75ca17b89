"""One evaluation of Paassen et al. (2021), section 4: fresh training and test sets, one
model fitted and run, its test mean absolute error and the seconds it took.

The paper's "mean absolute error on the test data" (Tables 2, 3 and 6): the MAE of a
sequence is the mean over its steps and output channels of the distance between the
model's plain output and the target; a data set's MAE is the mean over its test
sequences. Where the targets are 0/1 (latch and the languages) an evaluation also gives
the MAE of the outputs thresholded at 0.5, which is not the paper's measure.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from memrnn.experiments.paassen2021.config import DEEP_MODELS, Paassen2021Config
from memrnn.experiments.paassen2021.models import fit_predict
from memrnn.tasks.rsm_benchmarks import make_dataset


def mean_absolute_error(predictions: Sequence[np.ndarray], targets: Sequence[np.ndarray]) -> float:
    """The mean over sequences of each sequence's mean absolute error."""
    return float(np.mean([np.abs(p - t).mean() for p, t in zip(predictions, targets, strict=True)]))


def thresholded(predictions: Sequence[np.ndarray]) -> list[np.ndarray]:
    """1 where an output exceeds 0.5, else 0."""
    return [(y > 0.5).astype(np.float64) for y in predictions]


@dataclass(frozen=True)
class Evaluation:
    """The test MAE of the plain outputs (the paper's measure), that of the outputs
    thresholded at 0.5 (None where the targets are not 0/1), and the seconds of training
    and evaluation."""

    mae: float
    mae_thresholded: float | None
    seconds: float


def evaluate(
    config: Paassen2021Config, params: dict[str, float], data_seed: Sequence[int]
) -> Evaluation:
    """Fresh training and test sets from ``data_seed``; fit, predict, score, time."""
    rng = np.random.default_rng(list(data_seed))
    train = make_dataset(config.task, rng, config.n_train, test=False)
    test = make_dataset(config.task, rng, config.n_test, test=True)
    model_seed = int(rng.integers(2**31))
    if config.model in DEEP_MODELS:
        _warm_up_adam()
    started = time.perf_counter()
    predictions = fit_predict(config, params, train, test, model_seed)
    seconds = time.perf_counter() - started
    decided = mean_absolute_error(thresholded(predictions), test.targets) if test.binary else None
    return Evaluation(mean_absolute_error(predictions, test.targets), decided, seconds)


def _warm_up_adam() -> None:
    """Take one Adam step on a throwaway parameter: a process's first step imports
    machinery for about 3 s, which would otherwise count as the first model's runtime."""
    parameter = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.Adam([parameter])
    parameter.sum().backward()
    optimizer.step()
