"""The report: results.json, report.md and figures/*.png, made from the store alone."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memrnn.experiments.base import PROFILES, Experiment, RunRecord, Table
from memrnn.runner.store import ResultsStore


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:.3e}"


def _table_markdown(table: Table) -> list[str]:
    has_paper = any(c.paper is not None for row in table.rows.values() for c in row.values())
    head = ["", *table.columns]
    lines = [f"**{table.caption}**", ""]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * len(table.columns)) + "|")
    for row_name, cells in table.rows.items():
        shown = []
        for column in table.columns:
            cell = cells.get(column)
            if cell is None:
                shown.append("")
            elif cell.paper is not None:
                shown.append(f"{_fmt(cell.value)} ({_fmt(cell.paper)})")
            else:
                shown.append(_fmt(cell.value))
        lines.append("| " + " | ".join([row_name, *shown]) + " |")
    if has_paper:
        lines += ["", "Ours, with the paper's value in parentheses."]
    return [*lines, ""]


def _results(table: Table, experiment: str, profile: str) -> list[dict[str, Any]]:
    return [
        {
            "experiment": experiment,
            "table": table.name,
            "row": row_name,
            "column": column,
            "value": cell.value,
            "paper_value": cell.paper,
            "seed": list(cell.seeds),
            "profile": profile,
            "wall_seconds": cell.wall_seconds,
        }
        for row_name, cells in table.rows.items()
        for column, cell in cells.items()
    ]


def write_report(store: ResultsStore, out: Path, experiments: Sequence[Experiment]) -> list[Path]:
    """Write DIR/results.json, DIR/report.md and DIR/figures/*.png; return the files."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    from matplotlib import pyplot as plt

    results: list[dict[str, Any]] = []
    lines = [
        "# memrnn reproduction report",
        "",
        f"Made from `{store.path.name}` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC "
        "by `memrnn report`. Every number below was computed by the runs listed with it.",
        "",
    ]
    written = []
    for experiment in experiments:
        for profile in PROFILES:
            records = store.records(experiment.name, profile)
            if not records:
                continue
            lines += _section_header(experiment, profile, records)
            for table in experiment.tables(records):
                lines += _table_markdown(table)
                results += _results(table, experiment.name, profile)
            for name, figure in experiment.figures(records).items():
                path = out / "figures" / f"{experiment.name}-{profile}-{name}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".png", delete=False) as f:
                    figure.savefig(f, format="png", dpi=110, bbox_inches="tight")
                os.replace(f.name, path)
                plt.close(figure)
                written.append(path)
                lines += [f"![{name}](figures/{path.name})", ""]
    _write_atomic(out / "results.json", json.dumps(results, indent=1).encode())
    _write_atomic(out / "report.md", "\n".join(lines).encode())
    return [out / "results.json", out / "report.md", *written]


def _section_header(
    experiment: Experiment, profile: str, records: Sequence[RunRecord]
) -> list[str]:
    wall = sum(r.wall_seconds for r in records)
    versions = sorted({r.code_version for r in records})
    seeds = sorted({r.spec.seed for r in records})
    return [
        f"## {experiment.name}, profile {profile}: {experiment.title}",
        "",
        f"Reproduces: {experiment.reproduces}",
        "",
        f"Scale: {experiment.scale(profile)}",  # type: ignore[arg-type]
        "",
        f"{len(records)} runs, seeds {', '.join(map(str, seeds))}, "
        f"{wall:.1f} s of training in all; code {', '.join(versions)}.",
        "",
    ]
