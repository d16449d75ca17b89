"""hewitt2020 end to end: a smoke reproduce and its report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memrnn.experiments.hewitt2020 import Hewitt2020
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend


def test_smoke_reproduce(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    summary = reproduce([Hewitt2020()], "smoke", out, LocalBackend(workers=1))
    assert not summary.failed and summary.planned == 6
    # the LSTM's splits are kept under OUT/data, nothing is written to the cwd
    assert len(list((out / "data" / "dyck").glob("*.npz"))) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    results = json.loads((out / "results.json").read_text())
    generates = [r["value"] for r in results if r["column"] == "generates"]
    assert generates == [1.0] * 5  # four single constructions and one sweep
    report = (out / "report.md").read_text()
    assert "6 of 6 (construction, language) pairs generate Dyck-(k,m)" in report
    assert "srnn-dfa m=1 k=2..3" in report and "closing-by-distance" in report
    assert "learning-curves" in report
    # the smoke scale is stated, and nothing is set against the paper
    assert "Scale: smoke: the four efficient constructions" in report
    assert (
        "300 tokens of Dyck-(2,3)" in report and "nothing here is compared with the paper" in report
    )
    assert all(r["paper_value"] is None for r in results)
    assert "stands against it" not in report and "exactly" not in report
