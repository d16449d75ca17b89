"""The runs of each profile and the settings that follow from their model and task."""

from __future__ import annotations

import pytest

from memrnn.experiments.paassen2021 import Paassen2021, Paassen2021Config
from memrnn.experiments.paassen2021.config import DEEP_MODELS, LARGE_ESN, paper_neurons
from memrnn.experiments.paassen2021.paper import ESN_MODELS, MODELS
from memrnn.experiments.paassen2021.profiles import (
    QUICK_LARGE_SEEDS,
    QUICK_PARAMS,
    QUICK_SEEDS,
    SMOKE,
    scale,
    settings,
)
from memrnn.experiments.profiles import PROFILE_NAMES, Profile
from memrnn.tasks.rsm_benchmarks import TASKS


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_runs_are_distinct_and_valid(profile: Profile) -> None:
    runs = Paassen2021().runs(profile)
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs:
        config = Paassen2021Config(**spec.config)
        config.validate()
        assert (spec.model, spec.task) == (config.model, config.task)
        assert (spec.tags["model"], spec.tags["task"]) == (config.model, config.task)
        assert spec.tags["large"] == (config.neurons == LARGE_ESN)
    if profile == "smoke":
        assert all(spec.config["neurons"] == SMOKE["neurons"] for spec in runs)
        return
    combos = {(spec.model, spec.task, spec.config["neurons"]) for spec in runs}
    assert combos == {(m, t, paper_neurons(m, t)) for m in MODELS for t in TASKS} | {
        (m, t, LARGE_ESN) for m in ESN_MODELS for t in TASKS
    }
    large = [spec for spec in runs if spec.config["neurons"] == LARGE_ESN]
    assert all(spec.name.startswith(f"{spec.model}-{LARGE_ESN}/") for spec in large)
    if profile == "quick":
        per_combo = {
            m: sum(s.model == m and s.task == "json" and s.config["neurons"] == 256 for s in runs)
            for m in MODELS
        }
        assert all(per_combo[m] == QUICK_SEEDS[m in DEEP_MODELS] for m in MODELS)
        assert len(large) == QUICK_LARGE_SEEDS * len(ESN_MODELS) * len(TASKS)
    else:
        for spec in runs:
            assert spec.config["repeats"] == 10 and spec.config["steps"] == 10_000
            assert spec.config["search"] == (0 if spec.model in DEEP_MODELS else 20)


def test_settings_follow_the_profile() -> None:
    point = {"large": False, "model": "LDN-RSM", "task": "copy"}
    assert settings("quick", point) == {"neurons": 512, **QUICK_PARAMS[("LDN-RSM", "copy")]}
    assert settings("paper", point) == {"neurons": 512, "search": 20}
    assert settings("paper", {**point, "model": "GRU"}) == {"neurons": 256, "search": 0}
    assert settings("smoke", {**point, "large": True}) == {"neurons": LARGE_ESN}


def test_scale_says_what_each_profile_runs() -> None:
    assert scale("smoke").startswith("smoke: 8 training and 4 test sequences, 27 neurons")
    assert f"{QUICK_SEEDS[False]} repeats" in scale("quick")
    assert scale("paper").startswith("the paper's protocol: 20 random hyperparameter sets")
