"""The report of hewitt2020: its tables, findings and figures from stored runs."""

from __future__ import annotations

import pytest
import torch

from memrnn.experiments.base import RunRecord, RunSpec
from memrnn.experiments.hewitt2020 import (
    PAPER,
    Hewitt2020,
    Hewitt2020Config,
    lstm_units,
    verify_construction,
)


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


def test_no_language_models_no_figures() -> None:
    assert Hewitt2020().figures([]) == {}


def test_theorem_1_is_not_called_exact() -> None:
    config = Hewitt2020Config(part="construction", kind="srnn-dfa", k=2, m=1, k_last=3)
    metrics, artifacts = verify_construction(config, torch.device("cpu"))
    (spec,) = [s for s in Hewitt2020().runs("smoke") if s.config == config.to_dict()]
    record = RunRecord(spec, metrics, artifacts, "test", 1.0)
    text = " ".join(Hewitt2020().findings([record]))
    assert "exactly" not in text and "O(k^(m+1))" in text
    assert "at most 1.000 k^(m+1) over its 2 languages" in text  # 2k units <= k^2 at m = 1
    (sweeps,) = [t for t in Hewitt2020().tables([record]) if t.name == "sweep"]
    assert list(sweeps.rows) == ["srnn-dfa m=1 k=2..3"]
    assert sweeps.rows["srnn-dfa m=1 k=2..3"]["pairs"].value == 2
