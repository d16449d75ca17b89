"""The hyperparameters of the reservoir models and the space the paper profile's random
search draws them from (Paassen et al. 2021, section 4: 20 random sets, each scored on
3 data sets). The deep models have none to search: the paper fixes Adam's learning rate
1e-3 and weight decay 1e-8."""

from __future__ import annotations

import numpy as np

from memrnn.experiments.paassen2021.config import DEEP_MODELS, RESERVOIRS, Paassen2021Config
from memrnn.tasks.rsm_benchmarks import COPY_TASKS

HYPERPARAMETERS = (
    "spectral_radius",
    "sparsity",
    "input_scaling",
    "cycle_weight",
    "jump_weight",
    "jump_length",
    "input_weight",
    "theta",
    "alpha",
    "C",
    "gamma_factor",
)

# name: (scale, low, high) for uniform, log-uniform or integer draws
Space = dict[str, tuple[str, float, float]]
SEARCH_SPACE: dict[str, Space] = {
    "random": {
        "spectral_radius": ("uniform", 0.5, 1.0),
        "sparsity": ("uniform", 0.05, 0.5),
        "input_scaling": ("log", 0.1, 10.0),
    },
    "crj": {
        "cycle_weight": ("uniform", 0.1, 1.0),
        "jump_weight": ("uniform", 0.1, 1.0),
        "jump_length": ("int", 2, 32),
        "input_weight": ("log", 0.1, 10.0),
    },
    "ldn": {"theta": ("uniform", 2.0, 50.0)},
    "ESN": {"alpha": ("log", 1e-8, 1.0)},
    "RSM": {"C": ("log", 1.0, 1e4), "gamma_factor": ("log", 0.01, 1.0)},
    "RSM-ridge": {"alpha": ("log", 1e-8, 1.0)},  # c_out on the copy tasks
}


def config_params(config: Paassen2021Config) -> dict[str, float]:
    """The hyperparameters ``config`` sets, by name: the values a run uses unless its
    search finds better ones."""
    return {name: getattr(config, name) for name in HYPERPARAMETERS}


def search_space(model: str, task: str, neurons: int = 256) -> Space:
    """The hyperparameters the random search draws for ``model`` on ``task``."""
    if model in DEEP_MODELS:
        return {}
    prefix, kind = model.split("-")
    space = dict(SEARCH_SPACE[RESERVOIRS[prefix]])
    if "jump_length" in space:  # a CRJ's jumps must stay shorter than its cycle
        scale, low, high = space["jump_length"]
        space["jump_length"] = (scale, low, min(high, neurons - 2))
    space.update(SEARCH_SPACE[kind])
    if kind == "RSM" and task in COPY_TASKS:
        space.update(SEARCH_SPACE["RSM-ridge"])
    return space


def sample_params(space: Space, rng: np.random.Generator) -> dict[str, float]:
    """One random draw from ``space``."""
    params: dict[str, float] = {}
    for name, (scale, low, high) in space.items():
        if scale == "uniform":
            params[name] = float(rng.uniform(low, high))
        elif scale == "log":
            params[name] = float(np.exp(rng.uniform(np.log(low), np.log(high))))
        else:
            params[name] = int(rng.integers(int(low), int(high) + 1))
    return params
