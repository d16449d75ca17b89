"""The report's Table 1 (test error by model and R, beside the paper's) and findings."""

from __future__ import annotations

from collections.abc import Sequence

from memrnn.experiments.ba2016.paper import MODEL_NAMES, PAPER
from memrnn.experiments.base import RunRecord
from memrnn.experiments.tables import (
    Cell,
    Table,
    group,
    in_order,
    mean_cell,
    mean_std,
    metric,
    paper_number,
)

Cells = dict[str, dict[int, list[RunRecord]]]
"""Runs by model and R, as ``cells`` groups them."""


def cells(records: Sequence[RunRecord]) -> Cells:
    """Runs by model (in the paper's order) and R, each cell's by seed."""
    by_model: Cells = {}
    for (model, hidden), runs in group(records, "model", "hidden").items():
        by_model.setdefault(model, {})[hidden] = runs
    return in_order(by_model, MODEL_NAMES)


def table1(records: Sequence[RunRecord]) -> Table:
    """Test error (%) by model and R, mean and spread over seeds, beside the paper's."""
    rows: dict[str, dict[str, Cell]] = {}
    for model, by_hidden in cells(records).items():
        label = MODEL_NAMES[model]
        rows[label] = {
            f"R={hidden}": mean_cell(
                runs,
                "test_error",
                paper=paper_number(PAPER, "table1", label, f"R={hidden}"),
                scale=100,
                spread=True,
            )
            for hidden, runs in by_hidden.items()
        }
    columns = sorted({c for row in rows.values() for c in row}, key=lambda c: int(c[2:]))
    return Table(
        "table1",
        "Test error (%) on associative retrieval by model and number of recurrent "
        "units R (Table 1), mean over seeds",
        columns,
        rows,
    )


def report_findings(records: Sequence[RunRecord]) -> list[str]:
    """A sentence per model: its mean test error at each R."""
    lines = []
    for model, by_hidden in cells(records).items():
        parts = [
            f"R={hidden}: {mean_std(metric(runs, 'test_error'), 100)[0]:.2f}%"
            for hidden, runs in by_hidden.items()
        ]
        lines.append(f"{MODEL_NAMES[model]} test error: " + ", ".join(parts) + ".")
    return lines
