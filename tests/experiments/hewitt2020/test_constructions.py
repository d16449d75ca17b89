"""The constructions of hewitt2020 verified, one language or a sweep."""

from __future__ import annotations

import torch

from memrnn.experiments.hewitt2020 import Hewitt2020Config, verify_construction

CPU = torch.device("cpu")


def test_sweep_run_lists_every_language() -> None:
    config = Hewitt2020Config(part="construction", kind="srnn-log", k=2, m=2, k_last=5)
    metrics, artifacts = verify_construction(config, CPU)
    rows = artifacts["languages"]
    assert [row["k"] for row in rows] == [2, 3, 4, 5] and metrics["pairs"] == 4
    assert metrics["generates"] == 1.0 and metrics["units_as_stated"] == 1.0
    assert metrics["states"] == sum(row["states"] for row in rows)
    assert metrics["min_allowed"] == min(row["min_allowed"] for row in rows)


def test_one_language_by_walks() -> None:
    config = Hewitt2020Config(part="construction", kind="lstm-log", k=8, m=3, walk_steps=50)
    metrics, artifacts = verify_construction(config, CPU)
    assert artifacts == {} and metrics["exhaustive"] == 0.0 and metrics["generates"] == 1.0
    assert metrics["units"] == metrics["stated_units"] == 24
    assert metrics["lower_bound"] == 3 * 3 / 32  # m log2(k) / p with p = 32 bits
