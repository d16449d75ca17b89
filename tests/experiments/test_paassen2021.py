"""The paassen2021 experiment: its runs, its search, its tables and the paper's numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import numpy as np
import pytest
import torch

from memrnn.experiments.base import PROFILE_NAMES, Profile, RunContext, RunRecord, RunSpec
from memrnn.experiments.paassen2021 import (
    BINARY_TASKS,
    COPY_TASKS,
    DEEP_MODELS,
    HYPERPARAMETERS,
    LARGE_ESN,
    QUICK_LARGE_SEEDS,
    QUICK_SEEDS,
    SMOKE,
    Paassen2021,
    Paassen2021Config,
    Task,
    bold_faced,
    evaluate,
    fit_predict,
    mean_absolute_error,
    neurons_for,
    paper_neurons,
    sample_params,
    search_space,
    thresholded,
)
from memrnn.experiments.paassen2021_paper import ESN_MODELS, MODELS, PAPER, paper_mae
from memrnn.experiments.tables import Printed
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend
from memrnn.tasks.rsm_benchmarks import TASKS, make_dataset

CPU = RunContext(torch.device("cpu"))


def test_paper_numbers_as_printed() -> None:
    assert PAPER["table2"]["CRJ-RSM"]["repeat_copy"] == Printed(0.08, 0.01)
    assert PAPER["table3"]["SRNN"]["json"] == Printed(0.08, 0.16)
    assert PAPER["table3"]["rand-ESN"]["dyck3"] == Printed(0.28, 0.06)
    assert PAPER["table4"]["DSM"]["repeat_copy"] == Printed(1045.4, 211.6)
    assert PAPER["table4"]["LDN-RSM"]["latch"] == Printed(26.74, 2.04)
    assert PAPER["table5"]["CRJ-ESN"]["anbn"] == Printed(0.38, 0.02)
    assert all(paper_mae("LDN-RSM", task, False) == Printed(0.0, 0.0, True) for task in TASKS)


def test_appendix_numbers_as_printed() -> None:
    """Tables 6 and 7 print a row per data set and a column per ESN."""
    for table in ("table6", "table7"):
        assert list(PAPER[table]) == list(TASKS)
        assert all(list(PAPER[table][t]) == list(ESN_MODELS) for t in TASKS)
    assert PAPER["table6"]["dyck2"]["rand-ESN"] == Printed(0.58, 0.64)
    assert PAPER["table6"]["repeat_copy"]["CRJ-ESN"] == Printed(0.33, 0.01)
    assert paper_mae("LDN-ESN", "json", True) == Printed(0.10, 0.01)
    assert PAPER["table7"]["repeat_copy"]["rand-ESN"] == Printed(20.88, 1.35)
    assert PAPER["table7"]["latch"]["LDN-ESN"] == Printed(12.85, 0.44)
    assert PAPER["table7"]["json"]["CRJ-ESN"] == Printed(1.78, 0.26)


def _bold(large: bool) -> set[tuple[str, str]]:
    models = ESN_MODELS if large else MODELS
    return {
        (m, t) for m in models for t in TASKS if (n := paper_mae(m, t, large)) and n.bold
    }  # fmt: skip


def test_bold_cells_as_printed() -> None:
    """The paper's bold flags, which its rounded numbers cannot recover: Table 3 bolds
    rand-ESN's JSON "0.01 ± 0.00" but not CRJ-ESN's."""
    bold, bold_1024 = _bold(False), _bold(True)
    assert ("rand-ESN", "json") in bold and ("CRJ-ESN", "json") not in bold
    assert ("CRJ-ESN", "palindrome") in bold and ("CRJ-RSM", "latch") not in bold
    assert len(bold) == 6 + 35  # Table 2, Table 3
    assert bold_1024 == {
        *((m, "anbn") for m in ESN_MODELS),
        *((m, t) for m in ("rand-ESN", "CRJ-ESN") for t in ("palindrome", "json")),
    }
    for large, cells in ((False, bold), (True, bold_1024)):
        for m, t in cells:
            number = paper_mae(m, t, large)
            assert number is not None and max(number.value, number.std or 0) <= 0.01
    for table in ("table4", "table5", "table7"):  # runtimes are never bold
        assert not any(n.bold for row in PAPER[table].values() for n in row.values())


def test_the_literal_tasks_are_the_benchmarks() -> None:
    assert get_args(Task) == TASKS


def test_bold_face_needs_mean_and_std_below_a_hundredth() -> None:
    assert bold_faced(0.0, 0.0) and bold_faced(0.0099, 0.0099)
    assert not bold_faced(0.005, 0.02)  # a small mean with a large spread
    assert not bold_faced(0.02, 0.0)
    assert not bold_faced(0.01, 0.0) and not bold_faced(0.0, 0.01)  # "below", strictly


def test_512_neurons_only_for_the_reservoirs_on_the_copy_tasks() -> None:
    """Footnote 4 of the paper: "256 neurons were insufficient for the copy task. In this
    case, we increased the number of neurons to 512", read as both copy tasks."""
    for model in MODELS:
        for task in TASKS:
            wanted = 512 if task in COPY_TASKS and model not in DEEP_MODELS else 256
            assert paper_neurons(model, task) == wanted
            assert neurons_for(Paassen2021Config(model=model, task=task)) == wanted
    assert neurons_for(Paassen2021Config(model="GRU", task="copy", neurons=17)) == 17


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


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="model: expected rand-ESN, CRJ-ESN, LDN-ESN, GRU"):
        Paassen2021Config(model="LSTM").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="task: expected latch, copy, repeat_copy, dyck1"):
        Paassen2021Config(task="dyck9").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="repeats: must be at least 1"):
        Paassen2021Config(repeats=0).validate()


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
    values = np.unique(np.concatenate(outputs))
    if train.binary and model.endswith("RSM"):
        assert set(values) <= {0.0, 1.0}  # the SVM's classes
    elif train.binary and model in DEEP_MODELS:
        assert values.min() > 0 and values.max() < 1 and len(values) > 2  # the sigmoid
    else:
        assert len(values) > 2  # regression, not thresholded


def test_the_plain_mae_is_the_score_and_the_thresholded_one_is_kept_apart() -> None:
    config = Paassen2021Config(model="CRJ-ESN", task="dyck1", n_train=20, n_test=6, neurons=30)
    params = {name: getattr(config, name) for name in HYPERPARAMETERS}
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
    params = {name: getattr(config, name) for name in HYPERPARAMETERS}
    assert evaluate(config, params, [0, 1]).mae < 0.01


def test_search_picks_the_best_set_and_records_it() -> None:
    config = Paassen2021Config(
        model="CRJ-ESN", task="dyck1", n_train=10, n_test=4, neurons=20, search=3,
        search_datasets=1, repeats=2,
    )  # fmt: skip
    output = Paassen2021().fit_run(config, CPU)
    searched = output.artifacts["search"]
    assert len(searched) == 3
    best = min(searched, key=lambda s: s["mae"])["params"]
    assert output.artifacts["params"] == {k: best[k] for k in search_space("CRJ-ESN", "dyck1")}
    assert len(output.artifacts["mae"]) == len(output.artifacts["mae_thresholded"]) == 2
    assert output.metrics["mae"] == pytest.approx(np.mean(output.artifacts["mae"]))
    again = Paassen2021().fit_run(config, CPU)
    assert again.artifacts["mae"] == output.artifacts["mae"]  # seeded


def test_smoke_reproduce_states_its_scale_and_leaves_the_paper_out(tmp_path: Path) -> None:
    summary = reproduce([Paassen2021()], "smoke", tmp_path, LocalBackend(workers=1))
    assert not summary.failed and summary.planned == 8
    results = json.loads((tmp_path / "results.json").read_text())
    tables = {r["table"] for r in results}
    assert tables == {"table2", "table3", "table4", "table5", "thresholded", "hyperparameters"}
    assert all(r["paper_value"] is None and r["paper_std"] is None for r in results)
    cell = next(
        r
        for r in results
        if r["table"] == "table3" and r["row"] == "LDN-RSM" and r["column"] == "dyck1"
    )
    assert cell["value"] is not None and cell["std"] == 0.0
    report = (tmp_path / "report.md").read_text()
    assert "Table 2: test MAE" in report and "figure2" in report
    assert "Scale: smoke: 8 training and 4 test sequences, 27 neurons" in report
    assert "its tables leave the paper's numbers out" in report
    assert "the paper's Table" not in report  # no finding compares with the paper
    assert "seed 004" not in report and "SPEC" not in report
    assert (tmp_path / "figures" / "paassen2021-smoke-figure2.png").exists()


def _record(
    seed: int,
    maes: list[float],
    model: str = "GRU",
    task: str = "latch",
    neurons: int = 256,
    profile: str = "quick",
) -> RunRecord:
    config = {"seed": seed, "model": model, "neurons": neurons}
    large = neurons == LARGE_ESN
    tags = {"large": large, "model": model, "task": task, "seed": seed}
    name = f"{model}/{neurons}/{task}/{seed}"
    spec = RunSpec("paassen2021", name, profile, config, model, task, tags=tags)
    artifacts = {
        "mae": maes,
        "mae_thresholded": [round(m) for m in maes] if task in BINARY_TASKS else [],
        "seconds": [1.0] * len(maes),
        "params": {},
    }
    return RunRecord(spec, {}, artifacts, "v", 1)


def test_tables_pool_the_repeats_of_every_run() -> None:
    tables = Paassen2021().tables([_record(0, [0.0, 0.2]), _record(1, [0.4])])
    cell = tables[0].rows["GRU"]["latch"]
    assert cell.value == pytest.approx(0.2) and cell.std == pytest.approx(np.std([0, 0.2, 0.4]))
    assert cell.paper == Printed(0.0, 0.0, True) and cell.seeds == (0, 1)


def test_appendix_tables_hold_the_1024_neuron_esns_in_the_papers_layout() -> None:
    records = [
        _record(0, [0.3], "CRJ-ESN", "latch", 256),
        _record(0, [0.4, 1.0], "CRJ-ESN", "latch", LARGE_ESN),
        _record(0, [0.0], "LDN-ESN", "anbn", LARGE_ESN),
        _record(0, [0.1], "LDN-RSM", "anbn", 256),
        _record(0, [0.2], "SRNN", "copy", 256),
    ]
    tables = {t.name: t for t in Paassen2021().tables(records)}
    assert tables["table2"].rows["CRJ-ESN"]["latch"].value == pytest.approx(0.3)
    table6 = tables["table6"]
    assert list(table6.columns) == list(ESN_MODELS) and set(table6.rows) == {"latch", "anbn"}
    cell = table6.rows["latch"]["CRJ-ESN"]
    assert cell.value == pytest.approx(0.7) and cell.paper == Printed(0.39, 0.01)
    assert tables["table7"].rows["anbn"]["LDN-ESN"].paper == Printed(8.73, 0.08)
    decided = tables["thresholded"]
    assert set(decided.rows) == {"CRJ-ESN", f"CRJ-ESN-{LARGE_ESN}", f"LDN-ESN-{LARGE_ESN}"}
    assert decided.rows[f"CRJ-ESN-{LARGE_ESN}"]["latch"].value == pytest.approx(0.5)
    assert all(c.paper is None for row in decided.rows.values() for c in row.values())
    assert set(tables["table3"].rows) == {"LDN-RSM"} and "copy" in tables["table2"].columns
    smoke = Paassen2021().tables([_record(0, [0.3], "CRJ-ESN", profile="smoke")])
    assert smoke[0].rows["CRJ-ESN"]["latch"].paper is None


def test_findings_bold_face_by_mean_and_std() -> None:
    """A mean below 0.01 with a spread above it is not the paper's bold face."""
    records = [
        _record(0, [0.0, 0.0], "LDN-RSM", "dyck1"),
        _record(0, [0.0, 0.018], "LDN-RSM", "dyck2"),  # mean 0.009, std 0.009
        _record(0, [0.0, 0.0, 0.027], "LDN-RSM", "dyck3"),  # mean 0.009, std 0.0127
        _record(0, [0.0], "rand-ESN", "json", LARGE_ESN),
    ]
    findings = Paassen2021().findings(records)
    assert findings[0].startswith(
        "LDN-RSM: mean and std of the test MAE below 0.01 (the paper's bold face) on 2 of 3 "
        "data sets (dyck1, dyck2); the paper's Tables 2-3 bold-face 3 (dyck1, dyck2, dyck3)"
    )
    assert findings[1].startswith(
        f"rand-ESN-{LARGE_ESN}: mean and std of the test MAE below 0.01 (the paper's bold "
        "face) on 1 of 1 data sets (json); the paper's Table 6 bold-face 1 (json)"
    )


def test_tables_set_the_solved_cells_in_bold_as_the_paper_does() -> None:
    records = [
        _record(0, [0.0, 0.0], "LDN-RSM", "dyck1"),
        _record(0, [0.0, 0.0, 0.027], "LDN-RSM", "dyck3"),  # mean 0.009, std 0.0127
        _record(0, [0.0], "rand-ESN", "json", LARGE_ESN),
    ]
    tables = {t.name: t for t in Paassen2021().tables(records)}
    dyck1, dyck3 = (tables["table3"].rows["LDN-RSM"][t] for t in ("dyck1", "dyck3"))
    assert dyck1.bold and not dyck3.bold
    assert dyck1.paper is not None and dyck1.paper.bold
    large = tables["table6"].rows["json"]["rand-ESN"]
    assert large.bold and large.paper is not None and large.paper.bold
    seconds = [c for t in ("table5", "table7") for row in tables[t].rows.values()
               for c in row.values()]  # fmt: skip
    assert seconds and not any(c.bold or (c.paper and c.paper.bold) for c in seconds)
