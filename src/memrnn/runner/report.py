"""The report: results.json, report.md and figures/*.png, made from the store alone."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import warnings
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from memrnn.errors import UserError
from memrnn.experiments.base import Experiment, Profile, RunRecord
from memrnn.experiments.tables import Table
from memrnn.io import write_atomic
from memrnn.runner.store import ResultsStore


def _decimals(values: Sequence[float | None]) -> int:
    """The decimals that show each of a column's values with three significant digits
    (at most four): one precision for the whole column."""
    needed = [2 - math.floor(math.log10(abs(v))) for v in values if v and math.isfinite(v)]
    return min(max([0, *needed]), 4)


def _fmt(value: float | None, std: float | None, decimals: int) -> str:
    if value is None:
        return "-"
    shown = f"{value:.{decimals}f}" if abs(value) < 1e5 else f"{value:.2e}"
    return shown if std is None else f"{shown} ± {std:.{decimals}f}"


def _bold(text: str, bold: bool) -> str:
    return f"**{text}**" if bold and text != "-" else text


def _table_markdown(table: Table, reference: str) -> list[str]:
    has_paper = any(c.paper is not None for row in table.rows.values() for c in row.values())
    head = ["", *table.columns]
    lines = [f"**{table.caption}**", ""]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * len(table.columns)) + "|")
    column_cells = {c: [r[c] for r in table.rows.values() if c in r] for c in table.columns}
    decimals = {
        column: _decimals(
            [c.value for c in cells] + [c.paper.value for c in cells if c.paper is not None]
        )
        for column, cells in column_cells.items()
    }
    for row_name, cells in table.rows.items():
        shown = []
        for column in table.columns:
            cell, d = cells.get(column), decimals[column]
            if cell is None:
                shown.append("")
            elif cell.paper is not None:
                ours = _bold(_fmt(cell.value, cell.std, d), cell.bold)
                paper = cell.paper
                shown.append(f"{ours} ({_bold(_fmt(paper.value, paper.std, d), paper.bold)})")
            else:
                shown.append(_bold(_fmt(cell.value, cell.std, d), cell.bold))
        lines.append("| " + " | ".join([row_name, *shown]) + " |")
    if has_paper:
        lines += ["", f"Ours, with the {reference}'s value in parentheses."]
    return [*lines, ""]


def _results(
    table: Table, experiment: str, profile: str, code_version: str
) -> list[dict[str, Any]]:
    return [
        {
            "experiment": experiment,
            "table": table.name,
            "row": row_name,
            "column": column,
            "value": cell.value,
            "std": cell.std,
            "paper_value": None if cell.paper is None else cell.paper.value,
            "paper_std": None if cell.paper is None else cell.paper.std,
            "bold": cell.bold,
            "paper_bold": cell.paper is not None and cell.paper.bold,
            "seed": list(cell.seeds),
            "profile": profile,
            "wall_seconds": cell.wall_seconds,
            "code_version": code_version,
        }
        for row_name, cells in table.rows.items()
        for column, cell in cells.items()
    ]


def write_report(
    store: ResultsStore, out: Path, experiments: Sequence[Experiment], empty_ok: bool = True
) -> list[Path]:
    """Write DIR/results.json, DIR/runs.json, DIR/report.md and DIR/figures/*.png.

    results.json holds one object per table cell; runs.json one per run (config, seed,
    code version, times, status), so every number can be traced to the runs behind it.
    Returns the files written.

    Raises:
        UserError: unless ``empty_ok``, when the store holds no finished run that an
            experiment defines now (with ``--seeds``, of those seeds): nothing is written.
    """
    results: list[dict[str, Any]] = []
    lines = [
        "# memrnn reproduction report",
        "",
        f"Made from `{store.path.name}` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC "
        "by `memrnn report`. Every number below was computed by the runs listed with it.",
        "",
    ]
    written = []
    sections = 0
    ours = _written_before(out)
    for experiment in experiments:
        for profile in experiment.profiles:
            # Only the runs the experiment defines now: a run made with other settings
            # (the store keeps it) is another computation and would stand twice. Each
            # takes the spec the experiment gives it now: its tags are labels outside the
            # key, and a run stored before its tags changed (or before runs had tags) is
            # still the same computation.
            stored = store.records(experiment.name, profile)
            if not stored:
                continue
            current = {spec.key: spec for spec in experiment.runs(profile)}
            records = [
                dataclasses.replace(r, spec=current[r.spec.key])
                for r in stored
                if r.spec.key in current
            ]
            if not records:
                continue
            sections += 1
            lines += _section_header(experiment, profile, records)
            if len(stored) > len(records):
                lines += [
                    f"({len(stored) - len(records)} finished runs in the store with settings "
                    "the experiment no longer has are left out; `runs.json` lists them.)",
                    "",
                ]
            findings = experiment.findings(records)
            if profile == "smoke" and findings:  # a few steps at toy sizes: no verdicts
                lines += ["The findings as the code words them, from a smoke run's numbers "
                          "(they test that the findings are computed, and conclude nothing):",
                          ""]  # fmt: skip
            lines += [f"- {finding}" for finding in findings]
            lines += [""] if lines[-1] else []
            versions = ", ".join(sorted({r.code_version for r in records}))
            for table in experiment.tables(records):
                lines += _table_markdown(table, experiment.reference)
                results += _results(table, experiment.name, profile, versions)
            for name, figure in experiment.figures(records).items():
                path = out / "figures" / f"{experiment.name}-{profile}-{name}.png"
                _keep_if_not_ours(path, out, ours)
                write_atomic(
                    path, partial(figure.savefig, format="png", dpi=110, bbox_inches="tight")
                )
                written.append(path)
                lines += [f"![{name}](figures/{path.name})", ""]
            lines += _runs_table(records)
    if not sections and not empty_ok:
        raise UserError(
            f"{store.path}: no finished run of the experiments' runs (with --seeds, of "
            "those seeds) to report; nothing written"
        )
    runs = store.runs()
    texts = {
        out / "results.json": json.dumps(results, indent=1),
        out / "runs.json": json.dumps(runs, indent=1),
        out / "report.md": "\n".join(lines),
    }
    for path, text in texts.items():
        if not _keep_if_not_ours(path, out, ours) and path.name == "results.json":
            _keep_what_would_be_lost(path, results)
        write_atomic(path, lambda f, text=text: f.write(text.encode()))  # type: ignore[misc]
    files = [*texts, *written]
    sums = {str(p.relative_to(out)): _sha256(p.read_bytes()) for p in files}
    write_atomic(out / MANIFEST, lambda f: f.write(json.dumps({**ours, **sums}, indent=1).encode()))
    return files


MANIFEST = ".memrnn-report.json"  # the files reports wrote here: name -> SHA-256


class KeptFileWarning(UserWarning):
    """A report found a file of its name that it did not write and kept it aside."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _written_before(out: Path) -> dict[str, str]:
    """What earlier reports wrote in ``out`` (nothing, if the record is missing or bad)."""
    try:
        found = json.loads((out / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def _keep_if_not_ours(path: Path, out: Path, ours: Mapping[str, str]) -> bool:
    """Copy ``path`` aside, with a warning, if it is there but not as a report wrote it
    (a file of the user's, or one edited since); True if it was kept."""
    if not path.is_file():
        return False
    old = path.read_bytes()
    if ours.get(str(path.relative_to(out))) == _sha256(old):
        return False
    _keep(path, old, "not written by a memrnn report, or changed since", KeptFileWarning)
    return True


def _keep(path: Path, old: bytes, why: str, kind: type[UserWarning]) -> None:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%f")
    kept = path.with_name(f"{path.stem}.previous-{stamp}{path.suffix}")
    write_atomic(kept, lambda f: f.write(old))
    warnings.warn(f"{path}: {why}; the previous file is kept as {kept.name}", kind, stacklevel=4)


class FewerResultsWarning(UserWarning):
    """A report is about to replace a results file holding results it does not have."""


def _cell_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(row.get(k) for k in ("experiment", "profile", "table", "row", "column"))


def _keep_what_would_be_lost(path: Path, results: Sequence[Mapping[str, Any]]) -> None:
    """Copy ``path`` aside, with a warning, if it holds cells ``results`` lacks (or cannot
    be read): a report never replaces results with fewer without saying so."""
    if not path.exists():
        return
    old = path.read_bytes()
    try:
        lost = {_cell_key(row) for row in json.loads(old)} - {_cell_key(r) for r in results}
        why = f"{len(lost)} of its results are not in the store"
    except (ValueError, TypeError, AttributeError) as error:
        lost, why = {("unreadable",)}, f"it cannot be read ({error})"
    if lost:
        _keep(path, old, why, FewerResultsWarning)


def _runs_table(records: Sequence[RunRecord]) -> list[str]:
    lines = [
        "Runs (settings of each in `runs.json`):",
        "",
        "| run | seed | steps | wall s | key |",
        "|---|---:|---:|---:|---|",
    ]
    for r in sorted(records, key=lambda r: r.spec.name):
        steps = r.metrics.get("steps", float("nan"))
        lines.append(
            f"| {r.spec.name} | {r.spec.seed} | {steps:.0f} | {r.wall_seconds:.1f} | {r.spec.key} |"
        )
    return [*lines, ""]


# A smoke run trains for seconds to test the pipeline; its numbers judge nothing.
_SMOKE_NOTE = [
    "This is the smoke profile: a few training steps at toy sizes, to test that every "
    "part runs. Its numbers say nothing about the paper's, and no target is judged "
    "against them.",
    "",
]


def _section_header(
    experiment: Experiment, profile: Profile, records: Sequence[RunRecord]
) -> list[str]:
    wall = sum(r.wall_seconds for r in records)
    versions = sorted({r.code_version for r in records})
    seeds = sorted({r.spec.seed for r in records})
    spans = [r.span for r in records if r.span is not None]
    elapsed = (
        f" ({(max(e for _, e in spans) - min(s for s, _ in spans)) / 60:.1f} minutes of wall "
        "time from the first run's start to the last run's end, runs in parallel and any "
        "pause between sessions included)"
        if len(spans) == len(records)
        else ""
    )
    return [
        f"## {experiment.name}, profile {profile}: {experiment.title}",
        "",
        f"Reproduces: {experiment.reproduces}",
        "",
        f"Scale: {experiment.scale(profile)}",
        "",
        *(_SMOKE_NOTE if profile == "smoke" else []),
        f"{len(records)} runs (seeds {', '.join(map(str, seeds))}); "
        f"{wall:.1f} s of training in all{elapsed}; code {', '.join(versions)}.",
        "",
    ]
