"""The hewitt2020 experiment: its runs, a smoke reproduce, and its tables."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pytest
import torch

from memrnn.constructions import KINDS
from memrnn.experiments import hewitt2020
from memrnn.experiments.base import PROFILE_NAMES, Profile, RunRecord, RunSpec
from memrnn.experiments.hewitt2020 import (
    KEEP_MARGIN,
    PAPER,
    RATE_MARGIN,
    Hewitt2020,
    Hewitt2020Config,
    Kind,
    largest_k,
    lm_splits,
    lstm_units,
    sweep_runs,
    theorem_units,
    train_language_model,
    train_lengths,
    verify_construction,
)
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend

CPU = torch.device("cpu")


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_runs_are_distinct_and_valid(profile: Profile) -> None:
    runs = Hewitt2020().runs(profile)
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs[:200]:
        Hewitt2020Config(**spec.config).validate()
        assert spec.tags["part"] == spec.config["part"]
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
    metrics, artifacts = verify_construction(config, CPU)
    rows = artifacts["languages"]
    assert [row["k"] for row in rows] == [2, 3, 4, 5] and metrics["pairs"] == 4
    assert metrics["generates"] == 1.0 and metrics["units_as_stated"] == 1.0
    assert metrics["states"] == sum(row["states"] for row in rows)
    assert metrics["min_allowed"] == min(row["min_allowed"] for row in rows)


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="part: expected construction or lm, got 'x'"):
        Hewitt2020Config(part="x").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind: expected srnn-onehot, lstm-onehot"):
        Hewitt2020Config(kind="gru").validate()  # type: ignore[arg-type]
    assert get_args(Kind) == KINDS
    with pytest.raises(ValueError, match="k: the LSTM size"):
        Hewitt2020Config(k=1).validate()
    with pytest.raises(ValueError, match="k_last: a sweep"):
        Hewitt2020Config(part="construction", k=5, k_last=3).validate()
    with pytest.raises(ValueError, match="k_last: a sweep"):
        Hewitt2020Config(part="construction", k=2, k_last=3, walk_steps=10).validate()
    with pytest.raises(ValueError, match="data_seed: must not be negative"):
        Hewitt2020Config(data_seed=-1).validate()
    with pytest.raises(ValueError, match="patience: must be at least 1"):
        Hewitt2020Config(patience=0).validate()
    with pytest.raises(ValueError, match="clip: the recipe clips no gradient"):
        Hewitt2020Config(clip=1.0).validate()


SMALL = {"k": 2, "m": 3, "train_tokens": 300, "dev_tokens": 200, "test_tokens": 400}


def test_every_seed_of_a_cell_shares_its_splits() -> None:
    """Appendix H.1: identical dev and test sets in every setting; the authors' code also
    writes one training file per setting, which all seeds read."""
    runs = [Hewitt2020Config(**SMALL, seed=seed) for seed in range(3)]
    splits = [lm_splits(c, None) for c in runs]
    for name in ("train", "dev", "test"):
        first = getattr(splits[0], name)
        for other in splits[1:]:
            assert np.array_equal(getattr(other, name).tokens, first.tokens)
    larger = lm_splits(dataclasses.replace(runs[0], train_tokens=3_000), None)
    assert np.array_equal(larger.dev.tokens, splits[0].dev.tokens)
    assert np.array_equal(larger.test.tokens, splits[0].test.tokens)
    other_data = lm_splits(dataclasses.replace(runs[0], data_seed=1), None)
    assert not np.array_equal(other_data.dev.tokens, splits[0].dev.tokens)


def test_training_strings_hold_a_bracket_pair() -> None:
    """The authors' generator never ends a string before its first token: no lone end
    symbol among the training and dev strings, whose lengths stay within Table 2's."""
    assert train_lengths(3) == (3, 84) and train_lengths(5) == (3, 180)
    splits = lm_splits(Hewitt2020Config(**{**SMALL, "train_tokens": 3_000}), None)
    for strings in (splits.train, splits.dev):
        assert strings.lengths.min() >= 3 and strings.lengths.max() <= 84
    assert splits.test.lengths.min() >= 85


def test_the_recipe_follows_the_authors_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """One Adam for the whole run (the rate is halved in place, its moments kept), the rate
    halved after each epoch whose dev loss does not fall by a relative 1e-4, the model kept
    when it falls by more than 1e-4, and a stop three epochs after the last kept one."""
    made: list[torch.optim.Optimizer] = []

    class CountedAdam(torch.optim.Adam):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(hewitt2020.torch.optim, "Adam", CountedAdam)
    config = Hewitt2020Config(**SMALL, lr=0.5, max_epochs=40)
    metrics, artifacts, _ = train_language_model(config, None)
    assert len(made) == 1
    history = artifacts["history"]
    assert [epoch for epoch, _, _ in history] == list(range(1, len(history) + 1))
    lr, scheduler_best, best, best_epoch = config.lr, math.inf, math.inf, 0
    halvings = 0
    for epoch, dev_loss, used in history:
        assert used == pytest.approx(lr)
        if dev_loss < scheduler_best * (1 - RATE_MARGIN):
            scheduler_best = dev_loss
        else:
            lr, halvings = lr / 2, halvings + 1
        if dev_loss < best - KEEP_MARGIN:
            best, best_epoch = dev_loss, epoch
    assert halvings >= 2  # the run exercised the rule
    assert len(history) == config.max_epochs or len(history) - best_epoch == config.patience
    assert metrics["dev_loss"] == best and metrics["best_epoch"] == best_epoch
    assert metrics["epochs"] == len(history)


def _record(k: int, size: int, seed: int, test: float, profile: str = "quick") -> RunRecord:
    config = Hewitt2020Config(k=k, m=3, train_tokens=size, seed=seed)
    tags = {"part": "lm", "k": k, "m": 3, "train_tokens": size, "lr": config.lr, "seed": seed}
    name = f"lm/k{k}-m3/{size}/seed{seed}"
    spec = RunSpec("hewitt2020", name, profile, config.to_dict(), tags=tags)
    metrics = {
        "dev_closing": test + 0.01, "test_closing": test, "test_closing_prefixes": test - 0.01,
        "units": float(lstm_units(k, 3)),
    }  # fmt: skip
    curve = {"distance": [0, 1, 2], "p": [1.0, test, test * test]}
    return RunRecord(spec, metrics, {"test_curve": curve}, "test", 1.0)


def test_the_lm_table_headlines_the_median_over_seeds() -> None:
    tests = {0: 0.5, 1: 0.99, 2: 0.9}
    records = [_record(2, 20_000_000, seed, value) for seed, value in tests.items()]
    records += [_record(8, 20_000, seed, value) for seed, value in tests.items()]
    (table,) = [t for t in Hewitt2020().tables(records) if t.name == "lm"]
    big = table.rows["k=2 m=3 20,000,000 tokens"]
    assert big["test_median"].value == 0.9
    assert big["test_median"].paper == PAPER["lm"]["k=2 m=3 20,000,000 tokens"]["test_median"]
    assert big["test_median"].paper is not None and big["test_median"].paper.value == 1 - 1e-4
    assert big["test_min"].value == 0.5 and big["test_max"].value == 0.99
    assert big["dev_median"].value == pytest.approx(0.91)
    assert big["test_prefixes_median"].value == pytest.approx(0.89)
    assert big["seeds"].value == 3 and big["test_median"].seeds == (0, 1, 2)
    small = table.rows["k=8 m=3 20,000 tokens"]
    assert small["test_median"].paper is None  # the paper states a number at 2e7 only
    assert "error less than 10^{-4}" in table.caption
    findings = " ".join(Hewitt2020().findings(records))
    assert "median test bracket closing 0.9000 over seeds 0, 1, 2" in findings
    assert "no cell here stands against it" not in findings  # a 2e7 cell does


def test_the_figures_draw_one_line_per_setting() -> None:
    records = [
        _record(k, size, seed, 0.6 + 0.1 * seed)
        for k in (2, 8)
        for size in (20_000, 200_000)
        for seed in range(3)
    ]
    figures = Hewitt2020().figures(records)
    (axes,) = figures["closing-by-distance"].axes
    labels = [line.get_label() for line in axes.get_lines()]
    assert labels == [
        "k=2 m=3 20,000", "k=2 m=3 200,000", "k=8 m=3 20,000", "k=8 m=3 200,000"
    ]  # fmt: skip
    assert len({line.get_color() for line in axes.get_lines()}) == 4
    assert len({line.get_linestyle() for line in axes.get_lines()}) == 4
    first = axes.get_lines()[0]
    assert list(first.get_ydata()) == pytest.approx([1.0, 0.7, 0.49])  # median over seeds
    assert len(axes.collections) == 4  # one min-max band per setting
    (curves,) = figures["learning-curves"].axes
    assert [line.get_label() for line in curves.get_lines()] == [
        "k=2, dev", "k=2, test", "k=8, dev", "k=8, test"
    ]  # fmt: skip
    findings = " ".join(Hewitt2020().findings(records))
    assert "no cell here stands against it" in findings


def test_theorem_1_is_not_called_exact() -> None:
    config = Hewitt2020Config(part="construction", kind="srnn-dfa", k=2, m=1, k_last=3)
    metrics, artifacts = verify_construction(config, CPU)
    (spec,) = [s for s in Hewitt2020().runs("smoke") if s.config == config.to_dict()]
    findings = Hewitt2020().findings([RunRecord(spec, metrics, artifacts, "test", 1.0)])
    text = " ".join(findings)
    assert "exactly" not in text and "O(k^(m+1))" in text
    assert "at most 1.000 k^(m+1) over its 2 languages" in text  # 2k units <= k^2 at m = 1


def test_splits_are_written_once_and_reused(tmp_path: Path) -> None:
    config = Hewitt2020Config(
        k=2, m=3, train_tokens=300, dev_tokens=200, test_tokens=400, max_epochs=1
    )  # fmt: skip
    first, _, _ = train_language_model(config, tmp_path)
    (stored,) = (tmp_path / "dyck").glob("*.npz")
    written = stored.stat().st_mtime_ns
    again, _, _ = train_language_model(config, tmp_path)
    assert again == first and stored.stat().st_mtime_ns == written
    in_memory, _, _ = train_language_model(config, None)
    assert in_memory == first


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
