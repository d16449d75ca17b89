"""The report's findings: what each model solves by the paper's bold face."""

from __future__ import annotations

from memrnn.experiments.paassen2021.config import LARGE_ESN
from memrnn.experiments.paassen2021.findings import findings
from tests.experiments.paassen2021.records import record


def test_findings_bold_face_by_mean_and_std() -> None:
    """A mean below 0.01 with a spread above it is not the paper's bold face."""
    records = [
        record(0, [0.0, 0.0], "LDN-RSM", "dyck1"),
        record(0, [0.0, 0.018], "LDN-RSM", "dyck2"),  # mean 0.009, std 0.009
        record(0, [0.0, 0.0, 0.027], "LDN-RSM", "dyck3"),  # mean 0.009, std 0.0127
        record(0, [0.0], "rand-ESN", "json", LARGE_ESN),
    ]
    lines = findings(records)
    assert lines[0].startswith(
        "LDN-RSM: mean and std of the test MAE below 0.01 (the paper's bold face) on 2 of 3 "
        "data sets (dyck1, dyck2); the paper's Tables 2-3 bold-face 3 (dyck1, dyck2, dyck3)"
    )
    assert lines[0].endswith("; at least 2 repeats each; 3.0 s per repeat over all of them.")
    assert lines[1].startswith(
        f"rand-ESN-{LARGE_ESN}: mean and std of the test MAE below 0.01 (the paper's bold "
        "face) on 1 of 1 data sets (json); the paper's Table 6 bold-face 1 (json)"
    )
    assert len(lines) == 3 and lines[2].startswith("Figure 2: ")


def test_smoke_findings_leave_the_paper_out() -> None:
    (line, _) = findings([record(0, [0.5], "GRU", "latch", profile="smoke")])
    assert line.startswith("GRU: mean and std of the test MAE below 0.01 (the paper's bold")
    assert "on 0 of 1 data sets (none); at least 1 repeats" in line
    assert "the paper's Table" not in line
