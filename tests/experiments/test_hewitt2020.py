"""The hewitt2020 experiment: its runs, a smoke reproduce, and its tables."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from memrnn.experiments.hewitt2020 import (
    Hewitt2020,
    Hewitt2020Config,
    largest_k,
    lstm_units,
    sweep_runs,
    theorem_units,
    train_language_model,
    verify_construction,
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


@pytest.mark.parametrize("kind", ["lstm-log", "srnn-dfa"])
def test_sweep_covers_the_bound_exactly(kind: str) -> None:
    bound, extra = (4096, 1) if kind == "srnn-dfa" else (20_000, 0)
    want = {(k, m) for m in range(1, 20) for k in range(2, 20_001) if k ** (m + extra) <= bound}
    for quick in (False, True):
        got = [(k, m) for m, lo, hi in sweep_runs(kind, quick) for k in range(lo, hi + 1)]
        assert len(got) == len(set(got))
        expected = {(k, m) for k, m in want if not quick or m > 1 or k <= 1000 or extra}
        assert set(got) == expected
    assert largest_k(20_000, 1) == 20_000 and largest_k(20_000, 2) == 141
    assert largest_k(20_000, 14) == 2 and largest_k(20_000, 15) == 1


def test_sweep_run_lists_every_language() -> None:
    config = Hewitt2020Config(part="construction", kind="srnn-log", k=2, m=2, k_last=5)
    metrics, artifacts = verify_construction(config)
    rows = artifacts["languages"]
    assert [row["k"] for row in rows] == [2, 3, 4, 5] and metrics["pairs"] == 4
    assert metrics["generates"] == 1.0 and metrics["exact_units"] == 1.0
    assert metrics["states"] == sum(row["states"] for row in rows)
    assert metrics["min_allowed"] == min(row["min_allowed"] for row in rows)


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="part: expected construction or lm"):
        Hewitt2020Config(part="x").validate()
    with pytest.raises(ValueError, match="k: the LSTM size"):
        Hewitt2020Config(k=1).validate()
    with pytest.raises(ValueError, match="k_last: a sweep"):
        Hewitt2020Config(part="construction", k=5, k_last=3).validate()
    with pytest.raises(ValueError, match="k_last: a sweep"):
        Hewitt2020Config(part="construction", k=2, k_last=3, walk_steps=10).validate()


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
    assert not summary.failed and summary.planned == 6
    results = json.loads((tmp_path / "results.json").read_text())
    generates = [r["value"] for r in results if r["column"] == "generates"]
    assert generates == [1.0] * 5  # four single constructions and one sweep
    report = (tmp_path / "report.md").read_text()
    assert "6 of 6 (construction, language) pairs generate Dyck-(k,m)" in report
    assert "srnn-dfa m=1 k=2..3" in report and "closing-by-distance" in report
