"""The reservoir models' hyperparameters and the random search's space."""

from __future__ import annotations

import numpy as np

from memrnn.experiments.paassen2021.config import Paassen2021Config
from memrnn.experiments.paassen2021.search import (
    HYPERPARAMETERS,
    config_params,
    sample_params,
    search_space,
)


def test_search_space_per_model() -> None:
    assert set(search_space("LDN-RSM", "dyck1")) == {"theta", "C", "gamma_factor"}
    assert set(search_space("LDN-RSM", "copy")) == {"theta", "C", "gamma_factor", "alpha"}
    assert set(search_space("CRJ-ESN", "latch")) == {
        "cycle_weight",
        "jump_weight",
        "jump_length",
        "input_weight",
        "alpha",
    }
    assert search_space("DSM", "copy") == {}
    rng = np.random.default_rng(0)
    for _ in range(50):
        params = sample_params(search_space("CRJ-RSM", "copy"), rng)
        assert 0.1 <= params["cycle_weight"] <= 1.0
        assert isinstance(params["jump_length"], int) and 2 <= params["jump_length"] <= 32
        assert 1.0 <= params["C"] <= 1e4 and 1e-8 <= params["alpha"] <= 1.0


def test_a_crj_jumps_within_its_cycle() -> None:
    assert search_space("CRJ-ESN", "latch", neurons=10)["jump_length"] == ("int", 2, 8)


def test_config_params_are_the_configs_hyperparameters() -> None:
    params = config_params(Paassen2021Config(theta=3.0, C=7.0))
    assert tuple(params) == HYPERPARAMETERS
    assert params["theta"] == 3.0 and params["C"] == 7.0 and params["jump_length"] == 2
