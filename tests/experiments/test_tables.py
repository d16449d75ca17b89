"""The table helpers every experiment shares."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.experiments.base import RunRecord, RunSpec
from memrnn.experiments.tables import (
    Printed,
    curve,
    group,
    in_order,
    mean_cell,
    mean_std,
    median,
    metric,
    paper_number,
    printed_rows,
    runs_cell,
    where,
)


def _record(model: str, seed: int, error: float | None, wall: float = 1.0) -> RunRecord:
    spec = RunSpec(
        "e", f"{model}/seed{seed}", "quick", {"seed": seed}, tags={"model": model, "seed": seed}
    )
    metrics = {} if error is None else {"error": error}
    history = [(10, "error", 0.9), (10, "loss", 2.0), (20, "error", 0.5)]
    return RunRecord(spec, metrics, {}, "v", wall, history)


RECORDS = [
    _record("b", 1, 0.3),
    _record("a", 2, 0.2),
    _record("b", 0, 0.1, 2.0),
    _record("a", 0, None),
]


def test_where_and_group_by_tags() -> None:
    assert [r.spec.name for r in where(RECORDS, model="a")] == ["a/seed2", "a/seed0"]
    groups = group(RECORDS, "model")
    assert list(groups) == ["a", "b"]  # by key
    assert [r.spec.seed for r in groups["b"]] == [0, 1]  # each by seed
    assert list(group(RECORDS, "model", "seed")) == [("a", 0), ("a", 2), ("b", 0), ("b", 1)]
    assert list(in_order(groups, ["b", "c", "a"])) == ["b", "a"]


def test_summaries_over_seeds() -> None:
    runs = group(RECORDS, "model")["b"]
    assert metric(runs, "error") == [0.1, 0.3]
    assert mean_std([0.1, 0.3], 100) == (
        100 * float(np.mean([0.1, 0.3])),
        100 * float(np.std([0.1, 0.3])),
    )
    cell = mean_cell(runs, "error", paper=Printed(0.5), scale=100, spread=True)
    assert cell.value == pytest.approx(20.0) and cell.std == pytest.approx(10.0)
    assert cell.seeds == (0, 1) and cell.wall_seconds == 3.0 and cell.paper == Printed(0.5)
    assert mean_cell(runs, "error").std is None  # no spread unless asked
    assert mean_cell(runs[:1], "error", spread=True).std is None  # nor from one run
    empty = mean_cell(where(RECORDS, seed=0, model="a"), "error")
    assert empty.value is None and empty.seeds == (0,)
    assert median(RECORDS, "error") == pytest.approx(0.2)
    assert runs_cell(runs, 7.0, std=1.0, bold=True).bold


def test_curves_and_paper_numbers() -> None:
    assert curve(RECORDS[0], "error") == ([10, 20], [0.9, 0.5])
    paper = {"t": printed_rows(("x", "y"), {"row": (1.0, 2.0)})}
    assert paper_number(paper, "t", "row", "y") == Printed(2.0)
    assert (
        paper_number(paper, "t", "row", "z") is None
        and paper_number(paper, "u", "row", "x") is None
    )
