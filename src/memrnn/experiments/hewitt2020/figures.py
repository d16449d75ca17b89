"""The figures of hewitt2020's report: p_l by the distance between a close bracket and its
open bracket on test, and Figure 3's learning curves (mean_l p_l against training tokens),
both at the median over seeds with the min-max over seeds shaded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memrnn.experiments.base import RunRecord
from memrnn.experiments.hewitt2020.tables import lm_cells
from memrnn.experiments.tables import median

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

Cells = dict[tuple[int, int, int], list[RunRecord]]
LINE_STYLES = ("-", "--", "-.", ":")


def report_figures(records: Sequence[RunRecord]) -> dict[str, Figure]:
    """Both figures of the language-model runs; none without them."""
    cells = lm_cells(records)
    if not cells:
        return {}
    return {
        "closing-by-distance": _closing_by_distance(cells),
        "learning-curves": _learning_curves(cells),
    }


def _closing_by_distance(cells: Cells) -> Figure:
    """p_l against l on test, one line per (k, m, training tokens)."""
    from matplotlib.figure import Figure

    colours = _colours(len(cells))
    figure = Figure(figsize=(6.5, 4))
    axes = figure.add_subplot()
    for index, (colour, ((k, m, size), runs)) in enumerate(
        zip(colours, cells.items(), strict=True)
    ):
        distances, low, middle, high = _curve_band(runs)
        # dashes as well as colours, so that lines lying on each other (at p_l = 1)
        # all stay visible
        axes.plot(
            distances, middle, color=colour, linestyle=LINE_STYLES[index % len(LINE_STYLES)],
            label=f"k={k} m={m} {size:,}",
        )  # fmt: skip
        axes.fill_between(distances, low, high, color=colour, alpha=0.2, linewidth=0)
    axes.set_xlabel("tokens between the close bracket and its open bracket (l)")
    axes.set_ylabel("p_l on test: median over seeds, band min-max")
    axes.set_ylim(-0.02, 1.02)
    axes.legend(fontsize=7, title="language, training tokens", title_fontsize=7)
    return figure


def _colours(n: int) -> list[Any]:
    """n distinct colours in a fixed order (tab10, or tab20 beyond ten)."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _curve_band(
    runs: Sequence[RunRecord],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distances and the min, median and max of p_l over the runs that saw each one."""
    seen: dict[float, list[float]] = {}
    for r in runs:
        curve = r.artifacts["test_curve"]
        for d, p in zip(curve["distance"], curve["p"], strict=True):
            seen.setdefault(d, []).append(p)
    distances = np.array(sorted(seen))
    values = [np.array(seen[d]) for d in distances]
    return (
        distances,
        np.array([v.min() for v in values]),
        np.array([np.median(v) for v in values]),
        np.array([v.max() for v in values]),
    )


def _learning_curves(cells: Cells) -> Figure:
    """Figure 3's layout: mean_l p_l against training tokens, one panel per m and one colour
    per k, dev dashed and test solid at the median over seeds, test min-max shaded."""
    from matplotlib.figure import Figure

    ms = sorted({m for _, m, _ in cells})
    ks = sorted({k for k, _, _ in cells})
    colours = dict(zip(ks, _colours(len(ks)), strict=True))
    figure = Figure(figsize=(6, 2.2 * len(ms) + 0.6))
    for row, m in enumerate(ms):
        axes = figure.add_subplot(len(ms), 1, row + 1)
        for k in ks:
            sizes = sorted(size for kk, mm, size in cells if (kk, mm) == (k, m))
            if sizes:
                _learning_curve(axes, [cells[(k, m, size)] for size in sizes], sizes, k, colours[k])
        axes.set_xscale("log")
        axes.set_ylabel(f"m={m}")
        axes.set_ylim(-0.02, 1.02)
        axes.legend(fontsize=7, loc="lower right")
    axes.set_xlabel("training tokens")
    figure.suptitle("mean_l p_l, median over seeds (test band: min-max)", fontsize=9)
    return figure


def _learning_curve(
    axes: Axes, runs: list[list[RunRecord]], sizes: list[int], k: int, colour: Any
) -> None:
    """One k's dev and test medians against training tokens, the test min-max shaded."""
    tests = [[r.metrics["test_closing"] for r in rs] for rs in runs]
    axes.plot(
        sizes, [median(rs, "dev_closing") for rs in runs], "--", marker="d",
        color=colour, label=f"k={k}, dev",
    )  # fmt: skip
    axes.plot(
        sizes, [float(np.median(t)) for t in tests], marker="H", color=colour,
        label=f"k={k}, test",
    )  # fmt: skip
    axes.fill_between(
        sizes, [min(t) for t in tests], [max(t) for t in tests], color=colour,
        alpha=0.2, linewidth=0,
    )  # fmt: skip
