"""The report's tables in the paper's layout, pooling the repeats of every run."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.experiments.paassen2021.config import LARGE_ESN
from memrnn.experiments.paassen2021.paper import ESN_MODELS
from memrnn.experiments.paassen2021.tables import params_table, tables
from memrnn.experiments.tables import Printed
from tests.experiments.paassen2021.records import record


def test_tables_pool_the_repeats_of_every_run() -> None:
    made = tables([record(0, [0.0, 0.2]), record(1, [0.4])])
    cell = made[0].rows["GRU"]["latch"]
    assert cell.value == pytest.approx(0.2) and cell.std == pytest.approx(np.std([0, 0.2, 0.4]))
    assert cell.paper == Printed(0.0, 0.0, True) and cell.seeds == (0, 1)


def test_appendix_tables_hold_the_1024_neuron_esns_in_the_papers_layout() -> None:
    records = [
        record(0, [0.3], "CRJ-ESN", "latch", 256),
        record(0, [0.4, 1.0], "CRJ-ESN", "latch", LARGE_ESN),
        record(0, [0.0], "LDN-ESN", "anbn", LARGE_ESN),
        record(0, [0.1], "LDN-RSM", "anbn", 256),
        record(0, [0.2], "SRNN", "copy", 256),
    ]
    made = {t.name: t for t in tables(records)}
    assert made["table2"].rows["CRJ-ESN"]["latch"].value == pytest.approx(0.3)
    table6 = made["table6"]
    assert list(table6.columns) == list(ESN_MODELS) and set(table6.rows) == {"latch", "anbn"}
    cell = table6.rows["latch"]["CRJ-ESN"]
    assert cell.value == pytest.approx(0.7) and cell.paper == Printed(0.39, 0.01)
    assert made["table7"].rows["anbn"]["LDN-ESN"].paper == Printed(8.73, 0.08)
    decided = made["thresholded"]
    assert set(decided.rows) == {"CRJ-ESN", f"CRJ-ESN-{LARGE_ESN}", f"LDN-ESN-{LARGE_ESN}"}
    assert decided.rows[f"CRJ-ESN-{LARGE_ESN}"]["latch"].value == pytest.approx(0.5)
    assert all(c.paper is None for row in decided.rows.values() for c in row.values())
    assert set(made["table3"].rows) == {"LDN-RSM"} and "copy" in made["table2"].columns
    smoke = tables([record(0, [0.3], "CRJ-ESN", profile="smoke")])
    assert smoke[0].rows["CRJ-ESN"]["latch"].paper is None


def test_tables_set_the_solved_cells_in_bold_as_the_paper_does() -> None:
    records = [
        record(0, [0.0, 0.0], "LDN-RSM", "dyck1"),
        record(0, [0.0, 0.0, 0.027], "LDN-RSM", "dyck3"),  # mean 0.009, std 0.0127
        record(0, [0.0], "rand-ESN", "json", LARGE_ESN),
    ]
    made = {t.name: t for t in tables(records)}
    dyck1, dyck3 = (made["table3"].rows["LDN-RSM"][t] for t in ("dyck1", "dyck3"))
    assert dyck1.bold and not dyck3.bold
    assert dyck1.paper is not None and dyck1.paper.bold
    large = made["table6"].rows["json"]["rand-ESN"]
    assert large.bold and large.paper is not None and large.paper.bold
    seconds = [c for t in ("table5", "table7") for row in made[t].rows.values()
               for c in row.values()]  # fmt: skip
    assert seconds and not any(c.bold or (c.paper and c.paper.bold) for c in seconds)


def test_the_hyperparameters_table_has_a_row_per_model_and_task() -> None:
    records = [
        record(0, [0.0], "LDN-RSM", "dyck1", params={"theta": 3.0}),
        record(1, [0.0], "LDN-RSM", "dyck1", params={"theta": 4.0}),
        record(0, [0.0], "CRJ-ESN", "copy", LARGE_ESN, params={"alpha": 0.5}),
        record(0, [0.0], "rand-ESN", "copy", params={"alpha": 0.1, "theta": 2.0}),
    ]
    table = params_table(records)
    assert list(table.rows) == ["rand-ESN / copy", "LDN-RSM / dyck1", f"CRJ-ESN-{LARGE_ESN} / copy"]
    assert list(table.columns) == ["alpha", "theta"]
    last = table.rows["LDN-RSM / dyck1"]["theta"]
    assert last.value == 4.0 and last.seeds == (1,)  # the last run's
    assert "hyperparameters" not in {t.name for t in tables([record(0, [0.1])])}
