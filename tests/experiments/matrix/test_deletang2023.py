"""Delétang et al.'s Table 2 beside the matrix: their printed cells with sources, ours as
the maximum over every seed and rate, nothing filled where no source prints a value."""

from __future__ import annotations

import re

import pytest

from memrnn.experiments.matrix.deletang2023 import (
    LEVEL_TASKS,
    PRINTED,
    level_findings,
    runs_spread,
    table2,
    theirs,
)
from memrnn.experiments.matrix.tables import SOLVED
from memrnn.runner.report import _table_markdown
from tests.documented import ROOT
from tests.experiments.matrix.test_report import record


def test_the_printed_cells_are_those_of_the_shared_file_with_their_sources() -> None:
    source = ROOT.parent / "shared" / "deletang2023-table2.md"
    if not source.exists():  # the project's notes lie beside the checkout, not in it
        pytest.skip(f"{source} is not beside this checkout")
    text = source.read_text()
    rows = re.findall(r"^\| (R|DCF|CS) \| ([^|]+) \|(.*)\| (A|B) \|$", text, re.M)
    names = {"Modular Arithmetic (Simple)": "modular_arithmetic"}
    expected = {}
    for _, task, cells, source in rows:
        task = names.get(task.strip(), task.strip().lower().replace(" ", "_"))
        for arch, value in zip(("RNN", "Stack-RNN", "Tape-RNN", "Transformer", "LSTM"),
                               cells.split("|"), strict=True):  # fmt: skip
            if value.strip():
                expected[(arch, task)] = (float(value), source)
    assert dict(PRINTED) == expected
    assert len(PRINTED) == 31
    assert sum(len(tasks) for tasks in LEVEL_TASKS.values()) == 15


def test_ours_is_the_maximum_over_seeds_and_rates_beside_theirs() -> None:
    runs = [
        record("stack_rnn", "reverse_string", lr, seed, 0.5, test)
        for (lr, seed), test in {(1e-3, 0): 0.4, (1e-3, 1): 0.93, (3e-3, 0): 0.7}.items()
    ] + [record("lstm", "duplicate_string", 1e-3, 0, 0.9, 0.55)]
    table = table2(runs)
    assert table is not None and table.columns == ["reverse_string", "duplicate_string"]
    cell = table.rows["Stack-RNN"]["reverse_string"]
    assert cell.value == 0.93 and cell.bold and cell.paper == theirs("Stack-RNN", "reverse_string")
    assert cell.paper is not None and cell.paper.value == 1.0
    assert table.rows["RNN"]["reverse_string"].value is None  # the records have no rnn run
    assert "Tape-RNN" in table.rows and "reverse_string" in table.rows["Tape-RNN"]
    shown = "\n".join(_table_markdown(table, "paper"))
    assert "**0.930** (**1.000**)" in shown and "not available" in shown


def test_ours_takes_their_pooled_token_accuracy_where_a_run_recorded_it() -> None:
    pooled = record("rnn", "stack_manipulation", 1e-3, 0, 0.5, 0.95)
    pooled.metrics["test_pooled_token_accuracy"] = 0.85  # long answers weigh more
    older = record("rnn", "stack_manipulation", 1e-3, 1, 0.5, 0.8)  # before the metric
    table = table2([pooled, older])
    assert table is not None and table.rows["RNN"]["stack_manipulation"].value == 0.85


def test_the_runs_behind_each_cell_give_the_median_and_the_share_solved() -> None:
    runs = [record("tape_rnn", "odds_first", 1e-3, seed, 0.9, test)
            for seed, test in enumerate((0.3, 0.95, 0.99, 0.5))]  # fmt: skip
    table = runs_spread(runs)
    assert table is not None and table.columns == ["odds_first"]
    assert table.rows["Tape-RNN: median"]["odds_first"].value == pytest.approx(0.725)
    assert table.rows["Tape-RNN: share solved"]["odds_first"].value == 0.5
    assert set(table.rows) == {"Tape-RNN: median", "Tape-RNN: share solved"}
    assert runs_spread([record("lstm", "reversal", 1e-3, 0, 0.9, 0.5)]) is None


def test_a_record_set_without_their_tasks_has_no_table() -> None:
    assert table2([record("lstm", "reversal", 1e-3, 0, 0.9, 0.5)]) is None
    assert level_findings([record("lstm", "reversal", 1e-3, 0, 0.9, 0.5)]) == []


def test_the_findings_compare_level_by_level_from_the_numbers() -> None:
    runs = [record("stack_rnn", "reverse_string", 1e-3, 0, 0.9, 0.95),
            record("lstm", "reverse_string", 1e-3, 0, 0.9, 0.95),
            record("lstm", "parity_check", 1e-3, 0, 0.9, SOLVED)]  # fmt: skip
    found = level_findings(runs)
    assert found == [
        "regular tasks beside Delétang et al.'s Table 2: of the 1 cells both give, they "
        "solve 1 and the matrix 1; the two agree on solved or not in 1",
        "context-free tasks beside Delétang et al.'s Table 2: of the 2 cells both give, "
        "they solve 1 and the matrix 2; the two agree on solved or not in 1",
    ]
