"""The matrix end to end at smoke scale: results.json has a row per pair it ran, and the
report has the heatmap, the curves and the findings."""

from __future__ import annotations

import json
from pathlib import Path

from memrnn.experiments.matrix import Matrix
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend


def test_smoke_reproduce_writes_a_row_per_pair_and_the_figures(tmp_path: Path) -> None:
    summary = reproduce([Matrix()], "smoke", tmp_path, LocalBackend(workers=1))
    assert not summary.failed and len(summary.finished) == 4
    rows = json.loads((tmp_path / "results.json").read_text())
    pairs = {(r["row"], r["column"]) for r in rows if r["table"] == "matrix"}
    ran = {(s.tags["model"], s.tags["task"]) for s in summary.finished}
    assert pairs == ran
    assert all(0.0 <= r["value"] <= 1.0 for r in rows if r["table"] == "matrix")
    assert {r["table"] for r in rows} == {
        "matrix",
        "matrix_median",
        "matrix_chosen",
        "matrix_generalising",
        "seconds",
    }
    names = {p.name for p in (tmp_path / "figures").iterdir()}
    assert names == {"matrix-smoke-heatmap.png", "matrix-smoke-accuracy-by-length.png"}
    report = (tmp_path / "report.md").read_text()
    assert "Predicted: plain RNNs and LSTMs fail" in report and "minutes of training" in report
