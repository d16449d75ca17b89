"""Each trained experiment declares the metrics its runs report, so that a config's
``monitor`` is checked before training starts; the declaration must match what a run's
evaluation reports."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.experiments.base import RunContext, TrainedExperiment
from memrnn.experiments.registry import experiment_names, get_experiment
from memrnn.runner.config import config_from_mapping

TRAINED = [
    name for name in experiment_names() if isinstance(get_experiment(name), TrainedExperiment)
]


def test_every_experiment_but_the_fitted_ones_is_trained() -> None:
    assert {"ba2016", "grefenstette2015", "trask2016"} <= set(TRAINED)


@pytest.mark.parametrize("name", TRAINED)
def test_the_declared_metrics_are_those_an_evaluation_reports(name: str) -> None:
    experiment = get_experiment(name)
    assert isinstance(experiment, TrainedExperiment)
    for spec in experiment.runs("smoke"):
        config = config_from_mapping(experiment.config_type, spec.config)
        assert config.monitor in experiment.metrics
    spec = experiment.runs("smoke")[0]
    config = config_from_mapping(experiment.config_type, spec.config)
    run = experiment.build(config, RunContext(torch.device("cpu")))
    with torch.no_grad():
        reported = run.evaluate(np.random.default_rng(0), config.steps)  # a full one
    assert sorted(reported) == sorted(experiment.metrics)
