"""The report's markdown tables."""

from __future__ import annotations

from memrnn.experiments.tables import Cell, Printed, Table
from memrnn.runner.report import _table_markdown


def test_bold_cells_are_set_in_bold_and_the_rest_are_not() -> None:
    table = Table(
        "t",
        "A table",
        ["a", "b"],
        {
            "row": {
                "a": Cell(0.001, Printed(0.0, bold=True), std=0.0, bold=True),
                "b": Cell(0.5, Printed(0.4), std=0.1),
            }
        },
    )
    row = next(line for line in _table_markdown(table, "paper") if line.startswith("| row"))
    assert row == "| row | **0.001 ± 0** (**0**) | 0.5 ± 0.1 (0.4) |"
