"""Grids: the runs of a profile as the product of named axes, tagged with their point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from memrnn.errors import UserError
from memrnn.experiments.base import Profile, RunRecord, RunSpec, TrainedExperiment
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.grid import Grid, Point, grid_runs, other_seeds
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


def test_other_seeds_replace_the_seed_axis_and_nothing_else() -> None:
    grids = [Grid({"kind": ("a", "b"), "seed": (0, 1)}), Grid({"kind": ("a",)})]
    own = grid_runs(_Experiment(), "smoke", grids, name="{kind}/seed{seed}", labels=_labels)
    with other_seeds([2, 5, 7]):
        again = grid_runs(_Experiment(), "smoke", grids, name="{kind}/seed{seed}", labels=_labels)
    after = grid_runs(_Experiment(), "smoke", grids, name="{kind}/seed{seed}", labels=_labels)
    assert [s.name for s in again] == [
        "a/seed2", "a/seed5", "a/seed7", "b/seed2", "b/seed5", "b/seed7", "a/seed0",
    ]  # fmt: skip
    assert again[-1].key == own[-1].key  # the grid without seeds is unchanged
    assert not {s.key for s in again[:-1]} & {s.key for s in own}
    assert [s.key for s in after] == [s.key for s in own]  # only inside the block


def test_other_seeds_refuse_bad_seeds_and_an_experiment_without_seeds() -> None:
    for bad in ([], [1, 1], [-1], [True]):
        with pytest.raises(ValueError, match="seeds"), other_seeds(bad):
            pass
    with other_seeds([3]), pytest.raises(UserError, match="grid-test have no seed axis"):
        grid_runs(_Experiment(), "smoke", Grid({"kind": ("a",)}), name="{kind}", labels=_labels)


def _labels(config: _Config) -> tuple[str, str]:
    return "m", config.kind
