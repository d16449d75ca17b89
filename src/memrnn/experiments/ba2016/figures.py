"""The report's figure: validation error over training, a panel per R, a curve per run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from memrnn.experiments.ba2016.paper import MODEL_NAMES
from memrnn.experiments.ba2016.tables import cells
from memrnn.experiments.base import RunRecord
from memrnn.experiments.tables import curve

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def learning_curves(records: Sequence[RunRecord]) -> Figure | None:
    """The validation error (%) of every run at each evaluation; None without runs."""
    from matplotlib.figure import Figure

    by_model = cells(records)
    hiddens = sorted({h for by_hidden in by_model.values() for h in by_hidden})
    if not hiddens:
        return None
    figure = Figure(figsize=(4 * len(hiddens), 3.2), layout="constrained")
    grid = figure.subplots(1, len(hiddens), squeeze=False)[0]
    for axes, hidden in zip(grid, hiddens, strict=True):
        for model, by_hidden in by_model.items():
            for r in by_hidden.get(hidden, []):
                steps, errors = curve(r, "val_error")
                if steps:
                    axes.plot(steps, 100 * np.array(errors), label=MODEL_NAMES[model])
        axes.set_title(f"R = {hidden}")
        axes.set_xlabel("Adam steps")
        axes.set_ylabel("validation error (%)")
        axes.set_ylim(-2, 100)
        axes.legend(fontsize=7)
    return figure
