"""The report's tables in the paper's layout: Tables 2 and 3 (test MAE) and 4 and 5
(seconds) a row per model and a column per data set, Tables 6 and 7 of Appendix A (the
ESNs with 1024 neurons) a row per data set and a column per ESN; then the MAE of the
thresholded outputs (not the paper's measure) and the hyperparameters each run used.

A cell pools the repeats of all runs of its model and data set, and is set in bold by
the paper's rule where it counts as solved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from memrnn.experiments.base import RunRecord
from memrnn.experiments.paassen2021.config import BINARY_TASKS, DEEP_MODELS, LARGE_ESN, row_label
from memrnn.experiments.paassen2021.paper import ESN_MODELS, MODELS, PAPER, bold_faced
from memrnn.experiments.tables import Cell, Table, group, mean_std, paper_number, runs_cell
from memrnn.tasks.rsm_benchmarks import LANGUAGE_TASKS, NTM_TASKS, TASKS

_LAPTOP = "(the paper's on a 2017 laptop)"


def pooled(runs: Iterable[RunRecord], key: str) -> list[float]:
    """Every repeat's value of the artifact ``key`` ("mae", "seconds", ...) over ``runs``."""
    return [v for r in runs for v in r.artifacts[key]]


def compares_with_paper(records: Iterable[RunRecord]) -> bool:
    """Whether the paper's numbers go beside ours: not for the smoke profile's, which
    cannot be held against them."""
    return not any(r.spec.profile == "smoke" for r in records)


class _Cells:
    """The cells of every table from one profile's records, grouped by their model,
    whether it is an appendix ESN (``large``), and task."""

    def __init__(self, records: Sequence[RunRecord]) -> None:
        self.groups = group(records, "model", "large", "task")
        self.compare = compares_with_paper(records)

    def cell(
        self, table: str, row: str, column: str, runs_of: tuple[Any, ...], key: str
    ) -> Cell | None:
        """The table's cell (row, column) from the pooled repeats of the runs ``runs_of``
        (model, large, task) names, with the paper's number there."""
        runs = self.groups.get(runs_of)
        if not runs:
            return None
        values = pooled(runs, key)
        if not values:
            return None
        paper = paper_number(PAPER, table, row, column) if self.compare else None
        mean, std = mean_std(values)
        solved = key == "mae"  # the paper's bold face marks the errors it counts as solved
        return runs_cell(runs, mean, std=std, paper=paper, bold=solved and bold_faced(mean, std))

    def table(
        self,
        name: str,
        caption: str,
        rows: Sequence[str],
        columns: Sequence[str],
        runs_of: Callable[[str, str], tuple[Any, ...]],
        key: str,
    ) -> Table:
        """The table ``name`` of the cells (row, column) that have runs, ``runs_of(row,
        column)`` naming them (model, large, task); rows without any left out."""
        filled = {
            row: {
                column: c
                for column in columns
                if (c := self.cell(name, row, column, runs_of(row, column), key)) is not None
            }
            for row in rows
        }
        return Table(name, caption, list(columns), {r: c for r, c in filled.items() if c})


def _by_model(cells: _Cells, name: str, caption: str, tasks: Sequence[str], key: str) -> Table:
    """Tables 2-5's layout: a row per model, a column per data set."""
    return cells.table(name, caption, MODELS, tasks, lambda model, task: (model, False, task), key)


def _by_task(cells: _Cells, name: str, caption: str, key: str) -> Table:
    """The appendix's layout: a row per data set, a column per ESN."""
    return cells.table(name, caption, TASKS, ESN_MODELS, lambda task, m: (m, True, task), key)


def _thresholded(cells: _Cells) -> Table:
    """The MAE of the outputs thresholded at 0.5 of the models whose outputs are not 0/1
    already, on the data sets whose targets are."""
    decided: list[tuple[str, bool]] = [(m, False) for m in ESN_MODELS]
    decided += [(m, True) for m in ESN_MODELS] + [(m, False) for m in DEEP_MODELS]
    rows = {row_label(*row): row for row in decided}
    return cells.table(
        "thresholded",
        "Not the paper's measure: test MAE ± std of the outputs thresholded at 0.5 "
        "(the RSMs' SVM outputs are 0/1 already, so their MAE is that of Tables 2-3)",
        list(rows),
        BINARY_TASKS,
        lambda label, task: (*rows[label], task),
        "mae_thresholded",
    )


def params_table(records: Sequence[RunRecord]) -> Table:
    """The hyperparameters each (model, task) ran with (searched on the paper profile)."""
    rows: dict[str, dict[str, Cell]] = {}
    columns: list[str] = []
    ordered = sorted(
        records,
        key=lambda r: (r.spec.tags["large"], MODELS.index(r.spec.tags["model"]), r.spec.task),
    )
    for record in ordered:
        params = record.artifacts["params"]
        tags = record.spec.tags
        row = rows.setdefault(f"{row_label(tags['model'], tags['large'])} / {tags['task']}", {})
        for name, value in params.items():
            row[name] = Cell(float(value), seeds=(record.spec.seed,))
            if name not in columns:
                columns.append(name)
    return Table(
        "hyperparameters",
        "Hyperparameters used (the last run's where seeds differ; the paper profile's "
        "come from its random search)",
        columns,
        {name: row for name, row in rows.items() if row},
    )


def tables(records: Sequence[RunRecord]) -> list[Table]:
    """Every table that the records fill, in the paper's order."""
    cells = _Cells(records)
    mae, seconds = "test MAE ± std of the plain outputs", "seconds of training and evaluation ± std"
    made = [
        _by_model(cells, "table2", f"Table 2: {mae}, NTM benchmarks", NTM_TASKS, "mae"),
        _by_model(cells, "table3", f"Table 3: {mae}, languages", LANGUAGE_TASKS, "mae"),
        _by_model(
            cells, "table4", f"Table 4: {seconds}, NTM benchmarks {_LAPTOP}", NTM_TASKS, "seconds"
        ),
        _by_model(
            cells, "table5", f"Table 5: {seconds}, languages {_LAPTOP}", LANGUAGE_TASKS, "seconds"
        ),
        _by_task(cells, "table6", f"Table 6: {mae} of ESNs with {LARGE_ESN} neurons", "mae"),
        _by_task(
            cells,
            "table7",
            f"Table 7: {seconds}, ESNs with {LARGE_ESN} neurons {_LAPTOP}",
            "seconds",
        ),
        _thresholded(cells),
        params_table(records),
    ]
    return [t for t in made if t.rows]
