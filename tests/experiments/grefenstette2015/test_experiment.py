"""The whole experiment: a smoke reproduce trains every run, fills Figure 2a's table and
draws both figures, and its report claims nothing."""

from __future__ import annotations

import json
from pathlib import Path

from memrnn.experiments.grefenstette2015 import Grefenstette2015
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend


def test_smoke_reproduce(tmp_path: Path) -> None:
    summary = reproduce([Grefenstette2015()], "smoke", tmp_path, LocalBackend(workers=1))
    # two tasks x four models, and the DeQue's second start on each task
    assert not summary.failed and summary.planned == 10
    results = json.loads((tmp_path / "results.json").read_text())
    table = [r for r in results if r["table"] == "figure2a"]
    assert len(table) == 8 * 4 and all(0.0 <= r["value"] <= 1.0 for r in table)
    report = (tmp_path / "report.md").read_text()
    assert "stack-reversal-trace" in report and "training-curves" in report
    # A smoke report says what it is and claims nothing against the paper or a target.
    assert "Scale: a smoke run" in report and "4 steps" in report and "8000 steps" not in report
    assert "target of" not in report and "meets" not in report and "misses" not in report
    assert all(r["paper_value"] is None for r in table)
