"""The runs of a profile, declared as grids: every combination of named axes.

Each experiment module keeps a ``PROFILES`` table at its top: profile name -> the grid
(or grids) of that profile, that is, the values of its axes and the settings that
change with scale. ``grid_runs`` turns it into the profile's runs (``RunSpec``): one run per
point of the product of the axes (the first axis outermost, so seeds, the last axis by
convention, vary fastest), the point's coordinates as the run's tags.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from memrnn.errors import UserError
from memrnn.experiments.base import Experiment, RunSpec
from memrnn.experiments.config import TrainConfig, field_types

C = TypeVar("C", bound=TrainConfig)
Point = dict[str, Any]
"""A run's coordinates: axis name -> its value at that run."""
Axis = Sequence[Any] | Callable[[Point], Sequence[Any]]
"""An axis's values, or a function giving them from the point so far (an axis whose
values depend on an earlier one, such as the layers of only one model)."""


@dataclass(frozen=True)
class Grid:
    """Runs of one profile: one per point of the product of ``axes``.

    Attributes:
        axes: axis name -> its values, outermost first. An axis named like a field of the
            experiment's config sets that field; the others are labels that the
            experiment's ``settings`` function turns into fields.
        settings: config fields every run of the grid has; they win over the fields
            that the axes and ``settings`` set.
    """

    axes: Mapping[str, Axis]
    settings: Mapping[str, Any] = field(default_factory=dict)

    def points(self) -> list[Point]:
        """Every point of the grid, the first axis outermost."""
        points: list[Point] = [{}]
        for name, axis in self.axes.items():
            points = [
                {**point, name: value}
                for point in points
                for value in (axis(point) if callable(axis) else axis)
            ]
        return points


def _no_settings(point: Point) -> Mapping[str, Any]:
    return {}


_SEEDS: ContextVar[tuple[int, ...] | None] = ContextVar("memrnn_seeds", default=None)


@contextmanager
def other_seeds(seeds: Sequence[int] | None) -> Iterator[None]:
    """Within the block every grid's ``seed`` axis takes ``seeds`` instead of its own: a
    profile run again with another set of seeds (``memrnn reproduce --seeds``), whose
    runs are new runs beside the profile's own. None changes nothing.

    Raises:
        ValueError: a seed that is not an int >= 0, or one given twice.
    """
    if seeds is not None:
        if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
            raise ValueError(f"seeds: expected ints >= 0, got {list(seeds)}")
        if len(set(seeds)) != len(seeds) or not seeds:
            raise ValueError(f"seeds: expected distinct seeds, at least one, got {list(seeds)}")
    token = _SEEDS.set(None if seeds is None else tuple(seeds))
    try:
        yield
    finally:
        _SEEDS.reset(token)


def _with_seeds(experiment: Experiment[Any], grids: Sequence[Grid]) -> Sequence[Grid]:
    """``grids`` with the seeds of ``other_seeds``, if any."""
    seeds = _SEEDS.get()
    if seeds is None:
        return grids
    if not any("seed" in one.axes for one in grids):
        raise UserError(f"--seeds: the runs of {experiment.name} have no seed axis")
    return [
        replace(one, axes={**one.axes, "seed": seeds}) if "seed" in one.axes else one
        for one in grids
    ]


def grid_runs(
    experiment: Experiment[C],
    profile: str,
    grids: Grid | Sequence[Grid],
    *,
    name: str | Callable[[Point, C], str],
    labels: Callable[[C], tuple[str, str]],
    settings: Callable[[Point], Mapping[str, Any]] = _no_settings,
) -> list[RunSpec]:
    """The runs of ``profile``: for each point of each grid, in order, the config made of
    the point's config fields, ``settings(point)`` and the grid's settings (later ones
    winning), checked by ``validate``.

    Args:
        name: the run's name, a format string over the point and the config's fields
            (such as ``"{variant}/seed{seed}"``), or a function of both.
        labels: the (model, task) labels of a config, for listings of runs.
        settings: config fields that follow from a point's labels.
    """
    fields = field_types(experiment.config_type)
    specs = []
    for one in _with_seeds(experiment, [grids] if isinstance(grids, Grid) else grids):
        for point in one.points():
            own = {axis: value for axis, value in point.items() if axis in fields}
            config = experiment.config_type(**{**own, **settings(point), **one.settings})
            config.validate()
            run_name = (
                name.format_map({**config.to_dict(), **point})
                if isinstance(name, str)
                else name(point, config)
            )
            model, task = labels(config)
            specs.append(
                RunSpec(
                    experiment.name, run_name, profile, config.to_dict(), model, task, tags=point
                )
            )
    return specs
