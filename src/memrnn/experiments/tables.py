"""The report's tables, the paper's numbers beside ours, and the helpers every experiment
makes its tables with: runs selected and grouped by their tags, summaries over seeds,
curves from the history of evaluations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from memrnn.experiments.base import RunRecord

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Printed:
    """A number as the paper prints it: the value, its standard deviation where the
    paper gives one, and whether it is set in bold (by the paper's own rule)."""

    value: float
    std: float | None = None
    bold: bool = False


PaperTables = Mapping[str, Mapping[str, Mapping[str, Printed]]]
"""The paper's numbers of an experiment, laid out as its report's tables: table name ->
row -> column -> the number printed there. Every experiment keeps them in one such
table, ``PAPER``."""


@dataclass(frozen=True)
class Cell:
    """Our value (a summary over ``seeds`` when several runs feed it) beside the paper's,
    with our standard deviation over repeats where the table reports one, and whether ours
    is set in bold by the paper's rule."""

    value: float | None
    paper: Printed | None = None
    seeds: tuple[int, ...] = ()
    wall_seconds: float = 0.0
    std: float | None = None
    bold: bool = False


@dataclass(frozen=True)
class Table:
    """A table of the report: rows by columns of our value beside the paper's."""

    name: str
    caption: str
    columns: Sequence[str]
    rows: Mapping[str, Mapping[str, Cell]]


def paper_number(paper: PaperTables, table: str, row: str, column: str) -> Printed | None:
    """The paper's number in the cell (``row``, ``column``) of our table ``table``, or
    None where the paper prints none."""
    return paper.get(table, {}).get(row, {}).get(column)


def printed_rows(
    columns: Sequence[str], rows: Mapping[str, Sequence[float]]
) -> dict[str, dict[str, Printed]]:
    """A paper's table given as one tuple of values per row, in ``columns`` order."""
    return {
        row: {column: Printed(v) for column, v in zip(columns, values, strict=True)}
        for row, values in rows.items()
    }


def where(records: Iterable[RunRecord], **tags: Any) -> list[RunRecord]:
    """The records whose tags have the given values."""
    return [r for r in records if all(r.spec.tags.get(k) == v for k, v in tags.items())]


def group(records: Iterable[RunRecord], *tags: str) -> dict[Any, list[RunRecord]]:
    """The records by the values of ``tags`` (the value itself for one tag, else a tuple
    of values), each group ordered by seed, the groups by their key."""
    groups: dict[Any, list[RunRecord]] = {}
    for r in sorted(records, key=lambda r: r.spec.seed):
        values = tuple(r.spec.tags[t] for t in tags)
        groups.setdefault(values[0] if len(tags) == 1 else values, []).append(r)
    return dict(sorted(groups.items()))


def in_order(groups: Mapping[K, V], order: Iterable[K]) -> dict[K, V]:
    """``groups`` in the order of ``order`` (a paper's row order), leaving out keys it lacks."""
    return {key: groups[key] for key in order if key in groups}


def metric(runs: Iterable[RunRecord], name: str) -> list[float]:
    """The final value of the metric ``name`` of every run that reports it."""
    return [r.metrics[name] for r in runs if name in r.metrics]


def mean_std(values: Sequence[float], scale: float = 1.0) -> tuple[float, float]:
    """The mean and (population) standard deviation of ``values``, times ``scale``."""
    return scale * float(np.mean(values)), scale * float(np.std(values))


def median(runs: Iterable[RunRecord], name: str) -> float:
    """The median over runs of the metric ``name``."""
    return float(np.median(metric(runs, name)))


def runs_cell(
    runs: Sequence[RunRecord],
    value: float | None,
    *,
    std: float | None = None,
    paper: Printed | None = None,
    bold: bool = False,
) -> Cell:
    """A cell summarising ``runs``: their seeds and training time go with ``value``."""
    seeds = tuple(r.spec.seed for r in runs)
    return Cell(value, paper, seeds, sum(r.wall_seconds for r in runs), std, bold)


def mean_cell(
    runs: Sequence[RunRecord],
    name: str,
    *,
    paper: Printed | None = None,
    scale: float = 1.0,
    spread: bool = False,
) -> Cell:
    """The mean over ``runs`` of the metric ``name`` (times ``scale``), with its standard
    deviation when ``spread`` and more than one run reports it; empty when none does."""
    values = metric(runs, name)
    if not values:
        return runs_cell(runs, None, paper=paper)
    mean, std = mean_std(values, scale)
    return runs_cell(runs, mean, std=std if spread and len(values) > 1 else None, paper=paper)


def curve(record: RunRecord, name: str) -> tuple[list[int], list[float]]:
    """The steps at which the run evaluated the metric ``name``, and its values there."""
    points = [(step, value) for step, metric_name, value in record.history if metric_name == name]
    return [s for s, _ in points], [v for _, v in points]
