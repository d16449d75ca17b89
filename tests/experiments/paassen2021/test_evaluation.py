"""One evaluation: the paper's MAE of the plain outputs, the thresholded one apart."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.experiments.paassen2021.config import Paassen2021Config
from memrnn.experiments.paassen2021.evaluation import evaluate, mean_absolute_error, thresholded
from memrnn.experiments.paassen2021.models import fit_predict
from memrnn.experiments.paassen2021.search import config_params
from memrnn.tasks.rsm_benchmarks import make_dataset


def test_mean_absolute_error_averages_sequences() -> None:
    targets = [np.zeros((2, 1)), np.zeros((4, 1))]
    predictions = [np.ones((2, 1)), np.zeros((4, 1))]
    assert mean_absolute_error(predictions, targets) == 0.5  # not 2/6 pooled over steps


def test_the_plain_mae_is_the_score_and_the_thresholded_one_is_kept_apart() -> None:
    config = Paassen2021Config(model="CRJ-ESN", task="dyck1", n_train=20, n_test=6, neurons=30)
    params = config_params(config)
    result = evaluate(config, params, [0, 1])
    assert result.mae_thresholded is not None and result.mae != result.mae_thresholded
    rng = np.random.default_rng([0, 1])  # the data sets ``evaluate`` draws
    train = make_dataset("dyck1", rng, 20, test=False)
    test = make_dataset("dyck1", rng, 6, test=True)
    outputs = fit_predict(config, params, train, test, int(rng.integers(2**31)))
    assert result.mae == pytest.approx(mean_absolute_error(outputs, test.targets))
    decided = mean_absolute_error(thresholded(outputs), test.targets)
    assert result.mae_thresholded == pytest.approx(decided)
    copy = Paassen2021Config(model="CRJ-ESN", task="copy", n_train=5, n_test=3, neurons=30)
    assert evaluate(copy, params, [0, 1]).mae_thresholded is None


def test_thresholded_decides_at_one_half() -> None:
    (decided,) = thresholded([np.array([[0.2], [0.5], [0.51], [-1.0], [3.0]])])
    np.testing.assert_array_equal(decided, [[0.0], [0.0], [1.0], [0.0], [1.0]])


def test_ldn_rsm_solves_copy_with_the_quick_settings() -> None:
    """The copy heuristic, the S code and the quick hyperparameters together (one set)."""
    config = Paassen2021Config(
        model="LDN-RSM", task="copy", n_train=100, n_test=30, theta=30.0, gamma_factor=0.03,
        alpha=1e-3,
    )  # fmt: skip
    assert evaluate(config, config_params(config), [0, 1]).mae < 0.01
