"""The experiments ``memrnn`` knows by name."""

from __future__ import annotations

import importlib

from memrnn.errors import UserError
from memrnn.experiments.base import Experiment

# name -> "module:Class"; imported on first use so `memrnn list` stays fast.
_EXPERIMENTS = {
    "ba2016": "memrnn.experiments.ba2016:Ba2016",
    "grefenstette2015": "memrnn.experiments.grefenstette2015:Grefenstette2015",
    "hewitt2020": "memrnn.experiments.hewitt2020:Hewitt2020",
    "paassen2021": "memrnn.experiments.paassen2021:Paassen2021",
    "trask2016": "memrnn.experiments.trask2016:Trask2016",
}


def experiment_names() -> list[str]:
    return sorted(_EXPERIMENTS)


def load_experiment(path: str) -> Experiment:
    """Instantiate the experiment class at ``module:Class``."""
    module, _, qualname = path.partition(":")
    cls = getattr(importlib.import_module(module), qualname)
    experiment: Experiment = cls()
    return experiment


def experiment_path(experiment: Experiment) -> str:
    """Where a worker process can import ``experiment`` from."""
    cls = type(experiment)
    return f"{cls.__module__}:{cls.__qualname__}"


def get_experiment(name: str) -> Experiment:
    """The experiment called ``name``; a UserError lists the known names otherwise."""
    if name not in _EXPERIMENTS:
        known = ", ".join(experiment_names())
        raise UserError(f"unknown experiment {name!r}; the experiments are: {known}")
    return load_experiment(_EXPERIMENTS[name])
