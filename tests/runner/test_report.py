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
    assert row == "| row | **0.0010 ± 0.0000** (**0.0000**) | 0.500 ± 0.100 (0.400) |"


def test_a_column_shows_every_value_at_one_precision() -> None:
    values = {"x": 1.0, "y": 0.9375, "z": 0.5, "w": None, "v": 96.52}
    table = Table("t", "A table", ["acc", "err"], {
        row: {"acc": Cell(v if v is None or v <= 1 else 1.0), "err": Cell(v)}
        for row, v in values.items()
    })  # fmt: skip
    rows = [line for line in _table_markdown(table, "paper") if line.startswith("| ")][1:]
    assert [r.split(" | ")[1] for r in rows] == ["1.000", "0.938", "0.500", "-", "1.000"]
    assert [r.split(" | ")[2] for r in rows] == ["1.000 |", "0.938 |", "0.500 |", "- |", "96.520 |"]
