"""The hewitt2020 experiment: its runs, a smoke reproduce, and its tables."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from memrnn.experiments.hewitt2020 import (
    Hewitt2020,
    Hewitt2020Config,
    _paper_sweep,
    lstm_units,
    theorem_units,
    train_language_model,
)
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_runs_are_distinct_and_valid(profile: str) -> None:
    runs = Hewitt2020().runs(profile)  # type: ignore[arg-type]
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs[:200]:
        Hewitt2020Config(**spec.config).validate()
    lms = [s for s in runs if s.config["part"] == "lm"]
    if profile == "quick":
        assert {(s.config["k"], s.config["train_tokens"]) for s in lms} == {
            (2, 20_000), (2, 200_000), (8, 20_000), (8, 200_000)
        }  # fmt: skip


def test_units() -> None:
    assert lstm_units(2, 3) == 6 and lstm_units(8, 3) == 24 and lstm_units(128, 5) == 100
    assert theorem_units("srnn-log", 5, 3) == 48
    assert all(k >= 2 and k**m <= 20_000 for k, m in _paper_sweep())
    assert (20_000, 1) in _paper_sweep() and (2, 14) in _paper_sweep()


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="part: expected construction or lm"):
        Hewitt2020Config(part="x").validate()
    with pytest.raises(ValueError, match="k: the LSTM size"):
        Hewitt2020Config(k=1).validate()


def test_splits_are_written_once_and_reused(tmp_path: Path) -> None:
    config = Hewitt2020Config(
        k=2, m=3, train_tokens=300, dev_tokens=200, test_tokens=400, max_epochs=1,
        data_dir=str(tmp_path / "dyck"),
    )  # fmt: skip
    first, _ = train_language_model(config)
    (stored,) = (tmp_path / "dyck").glob("*.npz")
    written = stored.stat().st_mtime_ns
    again, _ = train_language_model(config)
    assert again == first and stored.stat().st_mtime_ns == written
    in_memory, _ = train_language_model(dataclasses.replace(config, data_dir=""))
    assert in_memory == first


def test_smoke_reproduce(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the runs write their splits under data/
    summary = reproduce([Hewitt2020()], "smoke", tmp_path, LocalBackend(workers=1))
    assert not summary.failed and summary.planned == 5
    results = json.loads((tmp_path / "results.json").read_text())
    generates = [r["value"] for r in results if r["column"] == "generates"]
    assert generates == [1.0] * 4
    report = (tmp_path / "report.md").read_text()
    assert "constructions generate Dyck-(k,m)" in report and "closing-by-distance" in report
