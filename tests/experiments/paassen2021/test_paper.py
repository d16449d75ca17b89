"""The numbers of Paassen et al. (2021), Tables 2-7, as printed, and their bold face."""

from __future__ import annotations

from memrnn.experiments.paassen2021.paper import ESN_MODELS, MODELS, PAPER, bold_faced, paper_mae
from memrnn.experiments.tables import Printed
from memrnn.tasks.rsm_benchmarks import TASKS


def test_paper_numbers_as_printed() -> None:
    assert PAPER["table2"]["CRJ-RSM"]["repeat_copy"] == Printed(0.08, 0.01)
    assert PAPER["table3"]["SRNN"]["json"] == Printed(0.08, 0.16)
    assert PAPER["table3"]["rand-ESN"]["dyck3"] == Printed(0.28, 0.06)
    assert PAPER["table4"]["DSM"]["repeat_copy"] == Printed(1045.4, 211.6)
    assert PAPER["table4"]["LDN-RSM"]["latch"] == Printed(26.74, 2.04)
    assert PAPER["table5"]["CRJ-ESN"]["anbn"] == Printed(0.38, 0.02)
    assert all(paper_mae("LDN-RSM", task, False) == Printed(0.0, 0.0, True) for task in TASKS)


def test_appendix_numbers_as_printed() -> None:
    """Tables 6 and 7 print a row per data set and a column per ESN."""
    for table in ("table6", "table7"):
        assert list(PAPER[table]) == list(TASKS)
        assert all(list(PAPER[table][t]) == list(ESN_MODELS) for t in TASKS)
    assert PAPER["table6"]["dyck2"]["rand-ESN"] == Printed(0.58, 0.64)
    assert PAPER["table6"]["repeat_copy"]["CRJ-ESN"] == Printed(0.33, 0.01)
    assert paper_mae("LDN-ESN", "json", True) == Printed(0.10, 0.01)
    assert PAPER["table7"]["repeat_copy"]["rand-ESN"] == Printed(20.88, 1.35)
    assert PAPER["table7"]["latch"]["LDN-ESN"] == Printed(12.85, 0.44)
    assert PAPER["table7"]["json"]["CRJ-ESN"] == Printed(1.78, 0.26)


def _bold(large: bool) -> set[tuple[str, str]]:
    models = ESN_MODELS if large else MODELS
    return {
        (m, t) for m in models for t in TASKS if (n := paper_mae(m, t, large)) and n.bold
    }  # fmt: skip


def test_bold_cells_as_printed() -> None:
    """The paper's bold flags, which its rounded numbers cannot recover: Table 3 bolds
    rand-ESN's JSON "0.01 ± 0.00" but not CRJ-ESN's."""
    bold, bold_1024 = _bold(False), _bold(True)
    assert ("rand-ESN", "json") in bold and ("CRJ-ESN", "json") not in bold
    assert ("CRJ-ESN", "palindrome") in bold and ("CRJ-RSM", "latch") not in bold
    assert len(bold) == 6 + 35  # Table 2, Table 3
    assert bold_1024 == {
        *((m, "anbn") for m in ESN_MODELS),
        *((m, t) for m in ("rand-ESN", "CRJ-ESN") for t in ("palindrome", "json")),
    }
    for large, cells in ((False, bold), (True, bold_1024)):
        for m, t in cells:
            number = paper_mae(m, t, large)
            assert number is not None and max(number.value, number.std or 0) <= 0.01
    for table in ("table4", "table5", "table7"):  # runtimes are never bold
        assert not any(n.bold for row in PAPER[table].values() for n in row.values())


def test_bold_face_needs_mean_and_std_below_a_hundredth() -> None:
    assert bold_faced(0.0, 0.0) and bold_faced(0.0099, 0.0099)
    assert not bold_faced(0.005, 0.02)  # a small mean with a large spread
    assert not bold_faced(0.02, 0.0)
    assert not bold_faced(0.01, 0.0) and not bold_faced(0.0, 0.01)  # "below", strictly
