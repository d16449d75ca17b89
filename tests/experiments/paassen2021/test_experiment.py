"""The experiment end to end: the smoke profile reproduced into a report."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from memrnn.experiments.base import RunContext
from memrnn.experiments.paassen2021 import Paassen2021, Paassen2021Config
from memrnn.experiments.paassen2021.run import carry_out
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend


def test_fit_run_carries_out_the_run() -> None:
    config = Paassen2021Config(model="CRJ-ESN", task="dyck1", n_train=8, n_test=4, neurons=20)
    output = Paassen2021().fit_run(config, RunContext(torch.device("cpu")))
    assert output.artifacts["mae"] == carry_out(config).artifacts["mae"]


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
