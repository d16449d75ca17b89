"""Delétang et al. (2023), *Neural Networks and the Chomsky Hierarchy* (ICLR 2023, arXiv
2207.02098 v3), Table 2, beside the matrix.

Their score: the token accuracy averaged over test lengths 41-500 after training on
lengths 1-40, the maximum over 10 seeds x 3 learning rates (section 4, Appendix A.4);
90% or more is solved. Only the cells below are printed by a source that can be read
here, each with its source; the table's other cells are not available, and the report
says so rather than fill them. Ours beside theirs is the same maximum, over every seed
and rate of the matrix's cell, of the same accuracy (tokens pooled over each length's
batch, ``scoring``) at the profile's own lengths; beside it, the median over those runs
and the share of them that solve the task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from memrnn.experiments.base import RunRecord
from memrnn.experiments.matrix.tables import SCORE, SOLVED
from memrnn.experiments.tables import Cell, Printed, Table, group, runs_cell

POOLED = "test_pooled_token_accuracy"  # their accuracy (``scoring``)

# Their architectures, as the table's rows, and memrnn's model of each.
ARCHITECTURES: Mapping[str, str] = {
    "RNN": "rnn",
    "Stack-RNN": "stack_rnn",
    "Tape-RNN": "tape_rnn",
    "Transformer": "transformer",
    "LSTM": "lstm",
}
# Their 15 tasks by level, as memrnn registers them.
LEVEL_TASKS: Mapping[str, tuple[str, ...]] = {
    "regular": ("even_pairs", "modular_arithmetic", "parity_check", "cycle_navigation"),
    "context-free": (
        "stack_manipulation", "reverse_string", "modular_arithmetic_brackets", "solve_equation",
    ),
    "context-sensitive": (
        "duplicate_string", "missing_duplicate", "odds_first", "binary_addition",
        "binary_multiplication", "compute_sqrt", "bucket_sort",
    ),
}  # fmt: skip
SOURCES = {
    "A": "Xu et al. (2025), DeltaFormer, Table 5, which reprints six rows of Table 2",
    "B": "Delétang et al. (2023), Appendix B.3.2",
}
_SIX = ("RNN", "Stack-RNN", "Tape-RNN", "Transformer", "LSTM")
_ROWS_A = {
    "modular_arithmetic": (100.0, 100.0, 100.0, 24.2, 100.0),
    "parity_check": (100.0, 100.0, 100.0, 52.0, 100.0),
    "stack_manipulation": (56.0, 100.0, 100.0, 57.5, 59.1),
    "reverse_string": (62.0, 100.0, 100.0, 62.3, 60.9),
    "duplicate_string": (50.3, 52.8, 100.0, 52.8, 57.6),
    "odds_first": (51.0, 51.9, 100.0, 52.8, 55.6),
}
# (architecture, task) -> (percent, source)
PRINTED: Mapping[tuple[str, str], tuple[float, str]] = {
    **{(arch, task): (value, "A") for task, row in _ROWS_A.items()
       for arch, value in zip(_SIX, row, strict=True)},
    ("Transformer", "cycle_navigation"): (61.9, "B"),
}  # fmt: skip
NOT_AVAILABLE = (
    "no source that can be read here prints them. The paper's text says that the LSTM "
    "solves Bucket Sort almost perfectly, the Transformer Bucket Sort and Even Pairs; "
    "that the Stack-RNN does not solve Solve Equation, nor the Tape-RNN Binary "
    "Multiplication or Compute Sqrt"
)


def theirs(architecture: str, task: str) -> Printed | None:
    """Their value (a fraction) in the cell, or None where no source prints it."""
    found = PRINTED.get((architecture, task))
    return None if found is None else Printed(found[0] / 100, bold=found[0] >= 100 * SOLVED)


def pooled(runs: Sequence[RunRecord]) -> list[float]:
    """Each run's test accuracy by their rule, tokens pooled over each length's batch (the
    matrix's test score for a run recorded before that metric)."""
    return [r.metrics.get(POOLED, r.metrics[SCORE]) for r in runs]


def _cells(
    records: Sequence[RunRecord],
) -> tuple[list[str], dict[Any, list[RunRecord]]]:
    """Their tasks that the records have, in Table 2's order, and the runs by (model,
    task)."""
    have = {r.spec.tags["task"] for r in records}
    tasks = [t for level in LEVEL_TASKS.values() for t in level if t in have]
    return tasks, group(records, "model", "task")


def table2(records: Sequence[RunRecord]) -> Table | None:
    """Their Table 2 for the tasks the records have, ours beside each printed cell; None
    when the records hold none of their tasks."""
    tasks, by_cell = _cells(records)
    if not tasks:
        return None
    rows: dict[str, dict[str, Cell]] = {}
    for architecture, model in ARCHITECTURES.items():
        row = {}
        for task in tasks:
            runs = by_cell.get((model, task), [])
            ours = max(pooled(runs), default=None)
            paper = theirs(architecture, task)
            if ours is not None or paper is not None:
                solved = ours is not None and ours >= SOLVED
                row[task] = runs_cell(runs, ours, paper=paper, bold=solved)
        rows[architecture] = row
    sources = "; ".join(f"{key}: {text}" for key, text in SOURCES.items())
    printed = "; ".join(f"{a} on {t}: {s}" for (a, t), (_, s) in PRINTED.items() if t in tasks)
    return Table(
        "deletang2023_table2",
        "Delétang et al. (2023), Table 2, their maximum over 10 seeds x 3 rates at test "
        "lengths 41-500 in parentheses, beside the matrix's maximum over every seed and "
        "rate of the cell of their accuracy (tokens pooled over each length's batch) at "
        'this profile\'s test lengths ("-": the profile did not run the cell); bold: '
        f"solved (>= {SOLVED:.0%}). Sources: {sources}. "
        f"Cells: {printed or 'none of these tasks'}. A cell without parentheses is not "
        f"available: {NOT_AVAILABLE}.",
        tasks,
        rows,
    )


def runs_spread(records: Sequence[RunRecord]) -> Table | None:
    """Beside ``table2``'s maxima, how the runs of each cell spread: the median of their
    accuracy by Delétang et al.'s rule and the share of them that solve the task (a
    maximum over many draws says what can be learned, these how often it is); None when
    the records hold none of their tasks."""
    tasks, by_cell = _cells(records)
    if not tasks:
        return None
    rows: dict[str, dict[str, Cell]] = {}
    for architecture, model in ARCHITECTURES.items():
        medians, shares = {}, {}
        for task in tasks:
            runs = by_cell.get((model, task), [])
            if runs:
                values = pooled(runs)
                medians[task] = runs_cell(runs, float(np.median(values)))
                shares[task] = runs_cell(runs, float(np.mean([v >= SOLVED for v in values])))
        if medians:
            rows[f"{architecture}: median"] = medians
            rows[f"{architecture}: share solved"] = shares
    if not rows:
        return None
    return Table(
        "deletang2023_runs",
        "The runs behind each cell of Table 2: the median over every seed and rate of the "
        "accuracy by Delétang et al.'s rule, and the share of the runs that solve the task "
        f"(>= {SOLVED:.0%}).",
        tasks,
        rows,
    )


def level_findings(records: Sequence[RunRecord]) -> list[str]:
    """For each level, how the cells that both tables fill compare: solved by theirs, by
    ours, and on how many the two agree."""
    table = table2(records)
    if table is None:
        return []
    found = []
    for level, tasks in LEVEL_TASKS.items():
        both = [c for row in table.rows.values() for t, c in row.items()
                if t in tasks and c.value is not None and c.paper is not None]  # fmt: skip
        if not both:
            continue
        theirs_solved = sum(c.paper is not None and c.paper.value >= SOLVED for c in both)
        ours_solved = sum(c.value is not None and c.value >= SOLVED for c in both)
        agree = sum(
            (c.value is not None and c.value >= SOLVED)
            == (c.paper is not None and c.paper.value >= SOLVED)
            for c in both
        )
        found.append(
            f"{level} tasks beside Delétang et al.'s Table 2: of the {len(both)} cells both "
            f"give, they solve {theirs_solved} and the matrix {ours_solved}; the two agree "
            f"on solved or not in {agree}"
        )
    return found
