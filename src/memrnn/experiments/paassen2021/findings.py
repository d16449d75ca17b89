"""The report's findings: for each model, the data sets it solves by the paper's bold
face (mean and standard deviation of the test MAE below 0.01) against those the paper's
Tables 2, 3 and 6 bold-face, and what Figure 2's states show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memrnn.experiments.base import RunRecord
from memrnn.experiments.paassen2021.config import row_label
from memrnn.experiments.paassen2021.figures import figure2_finding
from memrnn.experiments.paassen2021.paper import MODELS, SOLVED, bold_faced, paper_mae
from memrnn.experiments.paassen2021.tables import compares_with_paper, pooled
from memrnn.experiments.tables import group, mean_std
from memrnn.tasks.rsm_benchmarks import TASKS


def findings(records: Sequence[RunRecord]) -> list[str]:
    """A sentence per model that has runs (the appendix's ESNs after the others), then
    Figure 2's."""
    groups = group(records, "model", "large", "task")
    compare = compares_with_paper(records)
    lines = [
        line
        for big in (False, True)
        for model in MODELS
        if (line := _solved(groups, model, big, compare)) is not None
    ]
    lines.append(figure2_finding())
    return lines


def _solved(groups: dict[Any, list[RunRecord]], model: str, big: bool, compare: bool) -> str | None:
    """The data sets ``model`` (with 1024 neurons where ``big``) solves, the paper's where
    ``compare``, and its seconds per repeat; None where it has no runs."""
    tasks = [t for t in TASKS if (model, big, t) in groups]
    if not tasks:
        return None
    maes = {t: pooled(groups[(model, big, t)], "mae") for t in tasks}
    seconds = [np.mean(pooled(groups[(model, big, t)], "seconds")) for t in tasks]
    bold = [t for t in tasks if bold_faced(*mean_std(maes[t]))]
    line = (
        f"{row_label(model, big)}: mean and std of the test MAE below {SOLVED} "
        f"(the paper's bold face) on {len(bold)} of {len(tasks)} data sets "
        f"({', '.join(bold) or 'none'})"
    )
    if compare:
        theirs = [t for t in tasks if (paper := paper_mae(model, t, big)) and paper.bold]
        line += (
            f"; the paper's Table{' 6' if big else 's 2-3'} bold-face "
            f"{len(theirs)} ({', '.join(theirs) or 'none'})"
        )
    repeats = min(len(v) for v in maes.values())
    return (
        f"{line}; at least {repeats} repeats each; {sum(seconds):.1f} s per repeat over all "
        "of them."
    )
