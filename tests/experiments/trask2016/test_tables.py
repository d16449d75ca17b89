"""trask2016's tables and findings, from stored runs."""

from __future__ import annotations

import pytest

from memrnn.experiments.base import RunRecord
from memrnn.experiments.tables import Printed
from memrnn.experiments.trask2016 import GATE_COLUMNS, Trask2016
from tests.experiments.trask2016.records import record


def test_tables_average_and_count_over_seeds() -> None:
    records = [
        record("naive", 0, 0.9, 0.95),
        record("naive", 1, 0.1, 0.2),
        record("pop-bias", 0, 0.8, 0.99),
    ]
    tables = {table.name: table for table in Trask2016().tables(records)}
    gates, accuracy, seeds = tables["gates"], tables["accuracy"], tables["seeds"]
    assert gates.rows["naive"]["stack_use"].value == pytest.approx(0.5)
    assert gates.rows["naive"]["stack_use"].paper == Printed(0.0)
    assert gates.rows["naive"]["stack_use"].seeds == (0, 1)
    assert gates.rows["naive"]["stack_use"].wall_seconds == 4.0
    assert gates.rows["pop-bias"]["pop_encode"].paper is None  # the tutorial has no such run
    assert accuracy.rows["naive"]["long_seq_acc"].value == pytest.approx(0.575)
    assert seeds.rows["naive"]["seeds"].value == 2
    assert seeds.rows["naive"]["use the stack"].value == 1
    assert seeds.rows["naive"]["generalise"].value == 1
    assert seeds.rows["pop-bias"]["generalise"].value == 1


def test_rows_follow_the_variants_order_whatever_the_records_order() -> None:
    records = [record("tutorial-fix", 0, 0.9, 0.95), record("naive", 0, 0.1, 0.2)]
    for table in Trask2016().tables(records):
        assert list(table.rows) == ["naive", "tutorial-fix"], table.name


def test_smoke_findings_claim_nothing() -> None:
    experiment = Trask2016()
    records = [
        RunRecord(spec, {key: 0.5 for key in GATE_COLUMNS} | {"long_seq_acc": 1.0}, {}, "t", 1.0)
        for spec in experiment.runs("smoke")
    ]
    assert experiment.findings(records) == []


def test_quick_findings_name_each_variants_start() -> None:
    records = [
        record("naive", 0, 0.1, 0.2),
        record("pop-bias", 0, 0.8, 0.99),
        record("tutorial-fix", 0, 0.9, 0.95),
    ]
    findings = Trask2016().findings(records)
    assert findings[0].startswith(
        "naive (push bias U(0.1, 0.3), pop bias U(-0.1, 0.1)): 0 of 1 seeds use the stack"
    )
    assert findings[1].startswith("pop-bias (push bias +0, pop bias -1): 1 of 1 seeds")
    assert findings[2].startswith(
        "tutorial-fix (push bias U(1, 1.2), pop bias U(-1, -0.8), autoencoder side task): "
        "1 of 1 seeds use the stack"
    )
