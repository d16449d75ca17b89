"""Grids: the runs of a profile as the product of named axes, tagged with their point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from memrnn.experiments.base import Profile, RunRecord, RunSpec, TrainedExperiment
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.grid import Grid, Point, grid_runs
from memrnn.experiments.tables import Table


@dataclass(frozen=True)
class _Config(TrainConfig):
    width: int = 1
    depth: int = 1
    kind: Literal["a", "b"] = "a"


class _Experiment(TrainedExperiment[_Config]):
    name = "grid-test"
    title = reproduces = "a test"
    config_type = _Config

    def runs(self, profile: Profile) -> list[RunSpec]:
        raise AssertionError("not used")

    def build(self, config: _Config, context: Any) -> Any:
        raise AssertionError("not used")

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return []


def test_points_are_the_product_first_axis_outermost_with_dependent_axes() -> None:
    grid = Grid({"kind": ("a", "b"), "depth": lambda p: (1, 2) if p["kind"] == "a" else (3,)})
    assert grid.points() == [
        {"kind": "a", "depth": 1},
        {"kind": "a", "depth": 2},
        {"kind": "b", "depth": 3},
    ]


def test_runs_take_fields_from_axes_settings_and_the_grid_in_that_order() -> None:
    grid = Grid(
        {"variant": ("narrow", "wide"), "kind": ("a", "b"), "seed": (0, 1)},
        {"steps": 7, "depth": 5},
    )
    widths = {"narrow": {"width": 2, "depth": 9}, "wide": {"width": 8}}

    def settings(point: Point) -> dict[str, Any]:
        return widths[point["variant"]]

    specs = grid_runs(
        _Experiment(),
        "smoke",
        grid,
        name="{variant}-{kind}/w{width}/seed{seed}",
        labels=lambda c: (f"net{c.width}", c.kind),
        settings=settings,
    )
    assert [s.name for s in specs][:3] == [
        "narrow-a/w2/seed0",
        "narrow-a/w2/seed1",
        "narrow-b/w2/seed0",
    ]
    assert len(specs) == 8 and len({s.key for s in specs}) == 8
    first = specs[0]
    assert first.tags == {"variant": "narrow", "kind": "a", "seed": 0}
    assert (first.config["width"], first.config["depth"], first.config["steps"]) == (2, 5, 7)
    assert (first.model, first.task, first.profile, first.experiment) == (
        "net2",
        "a",
        "smoke",
        "grid-test",
    )
    named = grid_runs(
        _Experiment(),
        "quick",
        grid,
        name=lambda p, c: f"{p['variant']}{c.seed}",
        labels=lambda c: ("", ""),
    )
    assert named[1].name == "narrow1"


def test_a_bad_point_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="kind: expected a or b, got 'c'"):
        grid_runs(
            _Experiment(), "smoke", Grid({"kind": ("c",)}), name="{kind}", labels=lambda c: ("", "")
        )
