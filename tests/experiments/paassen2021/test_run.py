"""One run: the random search, then the repeats with the chosen set."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.experiments.paassen2021.config import Paassen2021Config
from memrnn.experiments.paassen2021.run import carry_out, random_search
from memrnn.experiments.paassen2021.search import config_params, search_space


def test_search_picks_the_best_set_and_records_it() -> None:
    config = Paassen2021Config(
        model="CRJ-ESN", task="dyck1", n_train=10, n_test=4, neurons=20, search=3,
        search_datasets=1, repeats=2,
    )  # fmt: skip
    output = carry_out(config)
    searched = output.artifacts["search"]
    assert len(searched) == 3
    best = min(searched, key=lambda s: s["mae"])["params"]
    assert output.artifacts["params"] == {k: best[k] for k in search_space("CRJ-ESN", "dyck1")}
    assert len(output.artifacts["mae"]) == len(output.artifacts["mae_thresholded"]) == 2
    assert output.metrics["mae"] == pytest.approx(np.mean(output.artifacts["mae"]))
    again = carry_out(config)
    assert again.artifacts["mae"] == output.artifacts["mae"]  # seeded


def test_no_search_keeps_the_configs_values() -> None:
    config = Paassen2021Config(model="CRJ-ESN", task="dyck1", theta=4.0)
    assert random_search(config, search_space("CRJ-ESN", "dyck1")) == (config_params(config), [])
    searching = Paassen2021Config(model="GRU", task="dyck1", search=5)
    assert random_search(searching, {}) == (config_params(searching), [])  # nothing to draw


def test_a_copy_run_has_no_thresholded_mae() -> None:
    config = Paassen2021Config(model="CRJ-ESN", task="copy", n_train=5, n_test=3, neurons=30)
    output = carry_out(config)
    assert "mae_thresholded" not in output.metrics and output.artifacts["mae_thresholded"] == []
    assert output.metrics["steps"] == 0.0 and output.metrics["mae_std"] == 0.0
