"""The matrix as tables: a score per model (row) and task (column).

Each (model, task, seed) keeps the learning rate whose run scored best on fresh sequences
of the training lengths (the same score, then the lower loss), never on the test lengths.
Over seeds a cell shows the best seed, as Delétang et al. (2023, Table 2) report, and the
median beside it. Beside those, what a user without the test lengths would get: the test
score of the run chosen on the training lengths alone (``chosen_run``, the rule ``memrnn
fit`` follows), and the fraction of the cell's runs that reach 90%. The time table gives
the training time of every run of the cell.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrnn.experiments.base import RunRecord
from memrnn.experiments.matrix.protocol import LEVELS, MODELS, protocol
from memrnn.experiments.tables import Cell, Table, group, runs_cell

SCORE = "test_score"  # Delétang et al.'s token accuracy, or whole sequences for values (run.py)
SOLVED = 0.9  # "solved" at a score of 90% or more (Delétang et al. 2023, section 4)


def selected(records: Sequence[RunRecord]) -> list[RunRecord]:
    """Per (model, task, seed) the run of the learning rate that did best on the training
    lengths: the higher ``train_score``, then the lower ``loss``, then the smaller rate."""

    def rank(r: RunRecord) -> tuple[float, float, float]:
        return (-r.metrics["train_score"], r.metrics.get("loss", 0.0), r.spec.tags["lr"])

    return [min(runs, key=rank) for runs in group(records, "model", "task", "seed").values()]


def chosen_run(runs: Sequence[RunRecord]) -> RunRecord:
    """The run chosen as ``selected`` chooses a rate, over every seed and rate of a cell:
    the best score on fresh sequences of the training lengths, then the lower loss (the
    first among equals), never the test lengths."""
    return min(runs, key=lambda r: (-r.metrics["train_score"], r.metrics.get("loss", 0.0)))


def generalising(runs: Sequence[RunRecord]) -> float:
    """The fraction of ``runs`` (every seed and rate) that score ``SOLVED`` or more."""
    return sum(r.metrics[SCORE] >= SOLVED for r in runs) / len(runs)


def tasks_in_order(records: Sequence[RunRecord]) -> list[str]:
    """The tasks of ``records``, by level (``LEVELS``), then in the order they appear."""
    seen = list(dict.fromkeys(r.spec.tags["task"] for r in records))
    return sorted(seen, key=lambda task: LEVELS.index(protocol(task).level))


def models_in_order(records: Sequence[RunRecord]) -> list[str]:
    """The models of ``records``, in ``MODELS`` order, any other after them."""
    seen = list(dict.fromkeys(r.spec.tags["model"] for r in records))
    return sorted(seen, key=lambda m: MODELS.index(m) if m in MODELS else len(MODELS))


def cells(records: Sequence[RunRecord]) -> dict[tuple[str, str], list[RunRecord]]:
    """The selected runs of each (model, task), one per seed."""
    return group(selected(records), "model", "task")


def best_run(runs: Sequence[RunRecord]) -> RunRecord:
    """The run of the best seed: the highest score (the first seed among equals)."""
    return max(runs, key=lambda r: r.metrics[SCORE])


def best(runs: Sequence[RunRecord]) -> float:
    """The best seed's score."""
    return best_run(runs).metrics[SCORE]


def middle(runs: Sequence[RunRecord], metric: str = SCORE) -> float:
    """The median of ``metric`` (the score) over seeds."""
    return float(np.median([r.metrics[metric] for r in runs]))


def score_tables(records: Sequence[RunRecord]) -> list[Table]:
    """The best-seed and median scores and the training seconds of every cell."""
    by_cell = cells(records)
    every_run = group(records, "model", "task")
    tasks, models = tasks_in_order(records), models_in_order(records)

    def table(name: str, caption: str, value: str) -> Table:
        rows: dict[str, dict[str, Cell]] = {}
        for model in models:
            row = {}
            for task in tasks:
                runs = by_cell.get((model, task))
                if not runs:
                    continue
                every = every_run[(model, task)]
                if value == "seconds":
                    row[task] = runs_cell(every, sum(r.wall_seconds for r in every))
                elif value == "chosen":
                    score = chosen_run(every).metrics[SCORE]
                    row[task] = runs_cell(every, score, bold=score >= SOLVED)
                elif value == "generalising":
                    row[task] = runs_cell(every, generalising(every))
                else:
                    score = best(runs) if value == "best" else middle(runs)
                    row[task] = runs_cell(runs, score, bold=score >= SOLVED)
            rows[model] = row
        return Table(name, caption, tasks, rows)

    levels = ", ".join(f"{t} ({protocol(t).level})" for t in tasks)
    return [
        table(
            "matrix",
            "Score over the test lengths (token accuracy, Delétang et al. 2023; whole "
            "sequences for tasks with value outputs), best seed; "
            f"bold: solved (>= {SOLVED:.0%}). Tasks: {levels}",
            "best",
        ),
        table("matrix_median", "The same score, median over seeds", "median"),
        table(
            "matrix_chosen",
            "The same score of the run chosen without the test lengths: the best on fresh "
            "sequences of the training lengths, over every seed and rate of the cell",
            "chosen",
        ),
        table(
            "matrix_generalising",
            f"The fraction of the cell's runs (every seed and rate) scoring {SOLVED:.0%} or more",
            "generalising",
        ),
        table("seconds", "Training seconds of every run of the cell (all rates, seeds)", "seconds"),
    ]
