"""The report's figures: the gate traces of each variant's best and worst seed, and the
share of sequences reversed at every length up to twice the longest trained."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from memrnn.experiments.base import RunRecord
from memrnn.experiments.trask2016.tables import Runs, by_variant

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def gate_traces(runs: Runs) -> Figure:
    """Push and pop strengths over one sequence, reading then writing, for the seeds with
    the highest and the lowest ``stack_use`` of each variant."""
    from matplotlib.figure import Figure

    traces = Figure(figsize=(10, 1.5 * len(runs) + 0.6), layout="constrained")
    grid = traces.subplots(len(runs), 2, squeeze=False)
    for row, (variant, variant_runs) in enumerate(runs.items()):
        ranked = sorted(variant_runs, key=lambda r: r.metrics["stack_use"])
        for col, (which, record) in enumerate((("best", ranked[-1]), ("worst", ranked[0]))):
            axes = grid[row, col]
            gates = np.array([record.artifacts["trace_push"], record.artifacts["trace_pop"]])
            image = axes.imshow(gates, vmin=0, vmax=1, cmap="viridis", aspect="auto")
            axes.set_yticks([0, 1], ["push", "pop"])
            axes.axvline(len(record.artifacts["trace_sequence"]) - 0.5, color="white")
            axes.set_title(
                f"{variant}, {which} seed ({record.spec.seed}, stack_use "
                f"{record.metrics['stack_use']:.2f}): reading | writing",
                fontsize=8,
            )
    for axes in grid[-1]:
        axes.set_xlabel("time step")
    traces.colorbar(image, ax=grid, shrink=0.8, label="gate strength")
    return traces


def accuracy_by_length(runs: Runs, trained: tuple[int, int]) -> Figure:
    """Sequences fully correct at each length, mean over each variant's seeds, with the
    training lengths (``trained``: the shortest and the longest) shaded."""
    from matplotlib.figure import Figure

    curves = Figure(figsize=(5, 3), layout="constrained")
    axes = curves.add_subplot()
    axes.axvspan(trained[0] - 0.5, trained[1] + 0.5, color="0.9", label="training lengths")
    for variant, variant_runs in runs.items():
        mean = np.mean([r.artifacts["seq_acc_by_length"] for r in variant_runs], axis=0)
        axes.plot(variant_runs[0].artifacts["lengths"], mean, marker="o", label=variant)
    axes.set_xlabel("sequence length")
    axes.set_ylabel("sequences fully correct (mean over seeds)")
    axes.set_ylim(-0.02, 1.02)
    axes.legend(fontsize=8)
    return curves


def report_figures(records: Sequence[RunRecord]) -> dict[str, Figure]:
    """The gate traces and the accuracy by length, by their names in the report."""
    runs, config = by_variant(records), records[0].spec.config
    return {
        "gate-traces": gate_traces(runs),
        "accuracy-by-length": accuracy_by_length(
            runs, (config["min_length"], config["max_length"])
        ),
    }
