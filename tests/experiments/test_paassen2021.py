"""The paassen2021 experiment: its runs, its search, its tables and the paper's numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from memrnn.experiments.base import RunRecord, TrainConfig
from memrnn.experiments.paassen2021 import (
    DEEP_MODELS,
    HYPERPARAMETERS,
    QUICK_SEEDS,
    Paassen2021,
    Paassen2021Config,
    evaluate,
    fit_predict,
    mean_absolute_error,
    sample_params,
    search_space,
)
from memrnn.experiments.paassen2021_paper import MODELS, PAPER_MAE, PAPER_SECONDS
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend
from memrnn.tasks.rsm_benchmarks import TASKS, make_dataset


def test_paper_numbers_as_printed() -> None:
    assert PAPER_MAE["CRJ-RSM"]["repeat_copy"] == (0.08, 0.01)
    assert PAPER_MAE["SRNN"]["json"] == (0.08, 0.16)
    assert PAPER_MAE["rand-ESN"]["dyck3"] == (0.28, 0.06)
    assert PAPER_SECONDS["DSM"]["repeat_copy"] == (1045.4, 211.6)
    assert PAPER_SECONDS["LDN-RSM"]["latch"] == (26.74, 2.04)
    assert PAPER_SECONDS["CRJ-ESN"]["anbn"] == (0.38, 0.02)
    assert all(PAPER_MAE["LDN-RSM"][task] == (0.0, 0.0) for task in TASKS)


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_runs_are_distinct_and_valid(profile: str) -> None:
    runs = Paassen2021().runs(profile)  # type: ignore[arg-type]
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs:
        config = Paassen2021Config(**spec.config)
        config.validate()
        assert (spec.model, spec.task) == (config.model, config.task)
    if profile == "smoke":
        return
    combos = {(spec.model, spec.task) for spec in runs}
    assert combos == {(m, t) for m in MODELS for t in TASKS}
    if profile == "quick":
        per_combo = {m: sum(s.model == m and s.task == "json" for s in runs) for m in MODELS}
        assert all(per_combo[m] == QUICK_SEEDS[m in DEEP_MODELS] for m in MODELS)
    else:
        for spec in runs:
            assert spec.config["repeats"] == 10 and spec.config["steps"] == 10_000
            assert spec.config["search"] == (0 if spec.model in DEEP_MODELS else 20)


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="model: expected one of"):
        Paassen2021Config(model="LSTM").validate()
    with pytest.raises(ValueError, match="task: expected one of"):
        Paassen2021Config(task="dyck9").validate()
    with pytest.raises(ValueError, match="repeats: must be at least 1"):
        Paassen2021Config(repeats=0).validate()
    with pytest.raises(NotImplementedError, match="fitted estimators"):
        Paassen2021().build(TrainConfig(), torch.device("cpu"))


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


def test_mean_absolute_error_averages_sequences() -> None:
    targets = [np.zeros((2, 1)), np.zeros((4, 1))]
    predictions = [np.ones((2, 1)), np.zeros((4, 1))]
    assert mean_absolute_error(predictions, targets) == 0.5  # not 2/6 pooled over steps


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
    params = {name: getattr(config, name) for name in HYPERPARAMETERS}
    outputs = fit_predict(config, params, train, test, seed=0)
    for y, target in zip(outputs, test.targets, strict=True):
        assert y.shape == target.shape
        if train.binary:
            assert set(np.unique(y)) <= {0.0, 1.0}


def test_ldn_rsm_solves_copy_with_the_quick_settings() -> None:
    """The copy heuristic, the S code and the quick hyperparameters together (one set)."""
    config = Paassen2021Config(
        model="LDN-RSM", task="copy", n_train=100, n_test=30, theta=30.0, gamma_factor=0.03,
        alpha=1e-3,
    )  # fmt: skip
    params = {name: getattr(config, name) for name in HYPERPARAMETERS}
    assert evaluate(config, params, [0, 1]).mae < 0.01


def test_search_picks_the_best_set_and_records_it() -> None:
    config = Paassen2021Config(
        model="CRJ-ESN", task="dyck1", n_train=10, n_test=4, neurons=20, search=3,
        search_datasets=1, repeats=2,
    )  # fmt: skip
    output = Paassen2021().fit_run(config)
    searched = output.artifacts["search"]
    assert len(searched) == 3
    best = min(searched, key=lambda s: s["mae"])["params"]
    assert output.artifacts["params"] == {k: best[k] for k in search_space("CRJ-ESN", "dyck1")}
    assert len(output.artifacts["mae"]) == 2
    assert output.metrics["mae"] == pytest.approx(np.mean(output.artifacts["mae"]))
    again = Paassen2021().fit_run(config)
    assert again.artifacts["mae"] == output.artifacts["mae"]  # seeded


def test_smoke_reproduce_writes_tables_with_the_papers_numbers(tmp_path: Path) -> None:
    summary = reproduce([Paassen2021()], "smoke", tmp_path, LocalBackend(workers=1))
    assert not summary.failed and summary.planned == 8
    results = json.loads((tmp_path / "results.json").read_text())
    tables = {r["table"] for r in results}
    assert {"table2", "table3", "table4", "table5", "hyperparameters"} <= tables
    cell = next(
        r
        for r in results
        if r["table"] == "table3" and r["row"] == "LDN-RSM" and r["column"] == "dyck1"
    )
    assert cell["paper_value"] == 0.0 and cell["value"] is not None and cell["std"] == 0.0
    report = (tmp_path / "report.md").read_text()
    assert "Table 2: test MAE" in report and "figure2" in report
    assert (tmp_path / "figures" / "paassen2021-smoke-figure2.png").exists()


def test_tables_pool_the_repeats_of_every_run() -> None:
    from memrnn.experiments.base import RunSpec

    def record(seed: int, maes: list[float]) -> RunRecord:
        spec = RunSpec("paassen2021", f"x{seed}", "quick", {"seed": seed}, "GRU", "latch")
        return RunRecord(
            spec, {}, {"mae": maes, "seconds": [1.0] * len(maes), "params": {}}, "v", 1
        )

    tables = Paassen2021().tables([record(0, [0.0, 0.2]), record(1, [0.4])])
    cell = tables[0].rows["GRU"]["latch"]
    assert cell.value == pytest.approx(0.2) and cell.std == pytest.approx(np.std([0, 0.2, 0.4]))
    assert cell.paper == 0.0 and cell.seeds == (0, 1)
