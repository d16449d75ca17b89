"""The report's figures: the matrix as a heatmap (best seed and median), and accuracy by
length for every task, one curve per model (its best seed)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from memrnn.experiments.base import RunRecord
from memrnn.experiments.matrix.protocol import protocol
from memrnn.experiments.matrix.tables import (
    SCORE,
    best,
    cells,
    middle,
    models_in_order,
    tasks_in_order,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def heatmap(records: Sequence[RunRecord]) -> Figure | None:
    """Models x tasks (grouped by level), coloured by score: best seed, then median."""
    from matplotlib.figure import Figure

    by_cell = cells(records)
    tasks, models = tasks_in_order(records), models_in_order(records)
    if not by_cell:
        return None
    figure = Figure(
        figsize=(2.5 + 0.55 * len(tasks), 1.2 + 0.9 * len(models)), layout="constrained"
    )
    panels = figure.subplots(2, 1, squeeze=False)[:, 0]
    for axes, (title, summary) in zip(
        panels, (("best seed", best), ("median over seeds", middle)), strict=True
    ):
        values = np.full((len(models), len(tasks)), np.nan)
        for (model, task), runs in by_cell.items():
            values[models.index(model), tasks.index(task)] = summary(runs)
        image = axes.imshow(values, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        axes.set_xticks(range(len(tasks)), [f"{t}\n({protocol(t).level})" for t in tasks],
                        rotation=60, ha="right", fontsize=7)  # fmt: skip
        axes.set_yticks(range(len(models)), models, fontsize=8)
        for (i, j), value in np.ndenumerate(values):
            if not math.isnan(value):
                ink = "k" if value > 0.6 else "w"  # readable on viridis' light and dark ends
                axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=6, color=ink)
        axes.set_title(f"Score over the test lengths, {title}", fontsize=9)
        figure.colorbar(image, ax=axes, shrink=0.8, label="score")
    return figure


def by_tokens(run: RunRecord) -> bool:
    """Whether the run is scored by its tokens (else by whole sequences: ``run``)."""
    return bool(run.artifacts["scored_by"] == "tokens")


def length_curves(records: Sequence[RunRecord]) -> Figure | None:
    """The score by length for each task, one curve per model (its best seed); the
    dotted line is the longest training length."""
    from matplotlib.figure import Figure

    by_cell = cells(records)
    tasks, models = tasks_in_order(records), models_in_order(records)
    if not by_cell:
        return None
    columns = min(4, len(tasks))
    rows = math.ceil(len(tasks) / columns)
    figure = Figure(figsize=(3.2 * columns, 2.4 * rows), layout="constrained")
    grid = figure.subplots(rows, columns, squeeze=False).ravel()
    for axes, task in zip(grid, tasks, strict=False):
        trained = None
        for model in models:
            runs = by_cell.get((model, task))
            if not runs:
                continue
            run = max(runs, key=lambda r: r.metrics[SCORE])
            curve = "token_accuracy" if by_tokens(run) else "accuracy"
            axes.plot(run.artifacts["lengths"], run.artifacts[curve], label=model)
            trained = run.spec.config["train_max"]
        if trained is not None:  # one line for the task, in the legend once
            axes.axvline(trained, color="grey", linestyle=":", label="longest trained")
        axes.set_title(f"{task} ({protocol(task).level})", fontsize=9)
        axes.set_ylim(-0.02, 1.02)
        axes.set_xlabel("length", fontsize=8)
    for axes in grid[len(tasks) :]:
        axes.set_visible(False)
    grid[0].set_ylabel("score", fontsize=8)
    grid[0].legend(fontsize=6)
    return figure
