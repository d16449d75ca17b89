"""The nine models' plain outputs, aligned with the targets."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.experiments.paassen2021.config import DEEP_MODELS, Paassen2021Config
from memrnn.experiments.paassen2021.models import fit_predict
from memrnn.experiments.paassen2021.search import config_params
from memrnn.tasks.rsm_benchmarks import make_dataset


@pytest.mark.parametrize(
    ("model", "task"),
    [
        ("CRJ-ESN", "dyck1"),
        ("CRJ-ESN", "copy"),
        ("rand-RSM", "dyck1"),
        ("rand-RSM", "copy"),
        ("GRU", "dyck1"),
        ("SRNN", "copy"),
        ("DSM", "dyck1"),
    ],
)
def test_outputs_are_aligned_with_targets(model: str, task: str) -> None:
    rng = np.random.default_rng(0)
    train = make_dataset(task, rng, 6, test=False)
    test = make_dataset(task, rng, 3, test=True)
    config = Paassen2021Config(model=model, task=task, neurons=18, steps=2, theta=8.0)
    outputs = fit_predict(config, config_params(config), train, test, seed=0)
    for y, target in zip(outputs, test.targets, strict=True):
        assert y.shape == target.shape
    values = np.unique(np.concatenate(outputs))
    if train.binary and model.endswith("RSM"):
        assert set(values) <= {0.0, 1.0}  # the SVM's classes
    elif train.binary and model in DEEP_MODELS:
        assert values.min() > 0 and values.max() < 1 and len(values) > 2  # the sigmoid
    else:
        assert len(values) > 2  # regression, not thresholded
