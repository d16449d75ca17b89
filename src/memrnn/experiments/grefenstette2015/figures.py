"""The report's figures: the test accuracy of each cell's run over training, and the gates
and stack of the Stack-LSTM reversing a test-length sequence."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memrnn.experiments.base import RunRecord
from memrnn.experiments.grefenstette2015.config import MODEL_NAMES
from memrnn.experiments.grefenstette2015.selection import select
from memrnn.experiments.tables import curve
from memrnn.tasks.transduction import TASKS

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def draw(records: Sequence[RunRecord]) -> dict[str, Figure]:
    """The training curves of the runs the cells report, and the Stack-LSTM's trace on
    reversal where it was taken."""
    chosen = select(records)
    if not chosen:
        return {}
    figures = {"training-curves": training_curves(chosen)}
    traced = [
        r
        for r in chosen
        if (r.spec.config["task"], r.spec.config["model"]) == ("reversal", "stack")
        and r.artifacts.get("strengths")
    ]
    if traced:
        figures["stack-reversal-trace"] = stack_trace(traced[0].artifacts)
    return figures


def training_curves(records: Sequence[RunRecord]) -> Figure:
    """Test coarse and fine accuracy over training steps, one column per task, one line
    per model."""
    from matplotlib.figure import Figure

    tasks = [t for t in TASKS if any(r.spec.config["task"] == t for r in records)]
    curves = Figure(figsize=(4 * len(tasks), 6), layout="constrained")
    grid = curves.subplots(2, len(tasks), squeeze=False, sharex="col")
    # Coarse accuracy shows what fine accuracy hides: a late drift of a few symbols.
    for row, metric in enumerate(("test_coarse", "test_fine")):
        for axes, task in zip(grid[row], tasks, strict=True):
            for r in records:
                if r.spec.config["task"] != task:
                    continue
                steps, values = curve(r, metric)
                if steps:
                    axes.plot(steps, values, label=MODEL_NAMES[r.spec.config["model"]])
            axes.set_title(task)
            axes.set_ylabel(metric.replace("_", " ") + " accuracy")
            axes.set_ylim(-0.02, 1.02)
            axes.legend(fontsize=7)
    for axes in grid[1]:
        axes.set_xlabel("steps")
    return curves


def stack_trace(trace: Mapping[str, Any]) -> Figure:
    """The push and pop gates over time above the strength of each stack position, from a
    run's ``artifacts`` (``TransductionRun.artifacts``)."""
    from matplotlib.figure import Figure

    heat = Figure(figsize=(8, 5), layout="constrained")
    top, bottom = heat.subplots(2, 1, height_ratios=(1, 3), sharex=True)
    top.imshow(np.array([trace["push"], trace["pop"]]), aspect="auto", vmin=0, vmax=1)
    top.set_yticks([0, 1], ["push", "pop"])
    image = bottom.imshow(np.array(trace["strengths"]).T, aspect="auto", origin="lower",
                          vmin=0, vmax=1)  # fmt: skip
    bottom.set_xlabel(f"time step (source of {trace['source_length']} symbols)")
    bottom.set_ylabel("stack position (bottom = 0)")
    heat.colorbar(image, ax=[top, bottom], label="strength")
    return heat
