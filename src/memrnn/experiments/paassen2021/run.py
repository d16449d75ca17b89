"""One run: Paassen et al.'s (2021) protocol for one model on one benchmark. A random
search first, where the run asks for one (the paper profile: 20 hyperparameter sets,
each scored on 3 data sets of its own), then the chosen set evaluated on ``repeats``
fresh data sets (10 in the paper), each with a fresh model.

The search's draws, its data sets and the repeats' data sets come from separate streams
of the run's seed, so that searching changes none of the repeats' data.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from memrnn.experiments.base import RunOutput
from memrnn.experiments.paassen2021.config import DEEP_MODELS, Paassen2021Config, neurons_for
from memrnn.experiments.paassen2021.evaluation import evaluate
from memrnn.experiments.paassen2021.search import (
    Space,
    config_params,
    sample_params,
    search_space,
)

_REPEAT, _SEARCH, _SEARCH_DATA = 1, 2, 3  # streams of the run's seed


def random_search(
    config: Paassen2021Config, space: Space
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The hyperparameters to evaluate with: ``config``'s own, or the best of
    ``config.search`` random draws from ``space`` by their mean test MAE over
    ``config.search_datasets`` data sets; and every draw with its MAE."""
    params = config_params(config)
    searched: list[dict[str, Any]] = []
    if not (config.search and space):
        return params, searched
    draws = np.random.default_rng([config.seed, _SEARCH])
    for _ in range(config.search):
        candidate = {**params, **sample_params(space, draws)}
        maes = [
            evaluate(config, candidate, [config.seed, _SEARCH_DATA, j]).mae
            for j in range(config.search_datasets)
        ]
        searched.append({"params": candidate, "mae": float(np.mean(maes))})
    return min(searched, key=lambda s: s["mae"])["params"], searched


def carry_out(config: Paassen2021Config) -> RunOutput:
    """The whole run: search, repeats, and their summary. The artifacts keep each
    repeat's numbers (the tables pool them over runs), the chosen hyperparameters and
    the search."""
    started = time.perf_counter()
    space = search_space(config.model, config.task, neurons_for(config))
    params, searched = random_search(config, space)
    results = [evaluate(config, params, [config.seed, _REPEAT, r]) for r in range(config.repeats)]
    repeats = {
        "mae": [r.mae for r in results],
        "mae_thresholded": [r.mae_thresholded for r in results if r.mae_thresholded is not None],
        "seconds": [r.seconds for r in results],
    }
    artifacts = {"params": {name: params[name] for name in space}, **repeats, "search": searched}
    return RunOutput(_metrics(config, repeats), [], artifacts, 0, time.perf_counter() - started)


def _metrics(config: Paassen2021Config, repeats: Mapping[str, list[float]]) -> dict[str, float]:
    """Means and standard deviations over the repeats; the thresholded MAE where the
    targets are 0/1."""
    metrics = {
        "mae": float(np.mean(repeats["mae"])),
        "mae_std": float(np.std(repeats["mae"])),
        "seconds": float(np.mean(repeats["seconds"])),
        "seconds_std": float(np.std(repeats["seconds"])),
        "steps": float(config.steps if config.model in DEEP_MODELS else 0),
    }
    if repeats["mae_thresholded"]:
        metrics["mae_thresholded"] = float(np.mean(repeats["mae_thresholded"]))
    return metrics
