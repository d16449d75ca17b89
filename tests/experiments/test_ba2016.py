"""The ba2016 experiment: its runs, a smoke reproduce with Table 1 and the learning
curves, and config checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memrnn.experiments.ba2016 import PAPER_TABLE1, Ba2016, Ba2016Config
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_runs_are_distinct_and_valid(profile: str) -> None:
    runs = Ba2016().runs(profile)  # type: ignore[arg-type]
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs:
        Ba2016Config(**spec.config).validate()
    cells = {(s.config["model"], s.config["hidden"]) for s in runs}
    if profile == "quick":
        assert cells == {(m, r) for m in PAPER_TABLE1 for r in (20, 50)}
    if profile == "paper":
        assert cells == {(m, r) for m in PAPER_TABLE1 for r in (20, 50, 100)}
    assert all(s.config["recurrent_scale"] == 1.0 for s in runs if s.config["model"] == "irnn")


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="model: expected one of"):
        Ba2016Config(model="gru").validate()
    with pytest.raises(ValueError, match="hidden: must be at least 1"):
        Ba2016Config(hidden=0).validate()
    with pytest.raises(ValueError, match="norm: expected sum or slow"):
        Ba2016Config(norm="both").validate()


def test_smoke_reproduce(tmp_path: Path) -> None:
    summary = reproduce([Ba2016()], "smoke", tmp_path, LocalBackend(workers=1))
    assert not summary.failed and summary.planned == 4
    results = json.loads((tmp_path / "results.json").read_text())
    table = [r for r in results if r["table"] == "table1"]
    assert {r["row"] for r in table} == {"Fast weights", "IRNN", "LSTM", "A-LSTM"}
    assert all(0 <= r["value"] <= 100 for r in table)
    report = (tmp_path / "report.md").read_text()
    assert "learning-curves" in report and "Fast weights test error" in report
