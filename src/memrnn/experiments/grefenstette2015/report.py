"""The report's Figure 2a table, with the paper's scores beside ours, and its findings: the
quick profile's targets, the Deep LSTM's failure at the test lengths, and which run each
cell reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memrnn.experiments.base import RunRecord
from memrnn.experiments.grefenstette2015.config import MODEL_NAMES
from memrnn.experiments.grefenstette2015.paper import PAPER, PAPER_BEST_DEPTH, SCORES
from memrnn.experiments.grefenstette2015.selection import (
    profile_of,
    select,
    training_perplexity,
)
from memrnn.experiments.tables import Cell, Table, paper_number

# The quick profile's acceptance: these must reach test coarse accuracy 0.95.
_MUST_GENERALISE = (("reversal", "stack"), ("copy", "queue"), ("reversal", "deque"),
                    ("copy", "deque"))  # fmt: skip
_Cells = Mapping[tuple[str, str], RunRecord]  # (task, model) -> the run the cell reports


def figure2a(records: Sequence[RunRecord]) -> Table:
    """Figure 2a: the chosen run of each cell, named by its configuration on the paper's
    grid; a smoke run is compared with nothing, its numbers mean nothing."""
    profile = profile_of(records)
    rows: dict[str, dict[str, Cell]] = {}
    for r in select(records):
        c = r.spec.config
        cell = f"{c['task']} {MODEL_NAMES[c['model']]}"  # the paper's row
        row = f"{cell} ({_configuration(c)})" if profile == "paper" else cell
        rows[row] = {
            name: Cell(
                r.metrics[name],
                None if profile == "smoke" else paper_number(PAPER, "figure2a", cell, name),
                (r.spec.seed,),
                r.wall_seconds,
            )
            for name in SCORES
        }
    caption = (
        "Greedy coarse and fine accuracy at the training lengths and at the longer "
        "test lengths (Figure 2a)"
    )
    if profile == "paper":
        depths = ", ".join(f"{task} {d}" for task, d in PAPER_BEST_DEPTH.items())
        caption += (
            "; each row is the run of its grid with the lowest training perplexity, its "
            "hidden size, learning rate and Deep LSTM depth in parentheses (the depths of "
            f"the paper's Deep LSTM rows: {depths} layers)"
        )
    return Table("figure2a", caption, list(SCORES), rows)


def findings(records: Sequence[RunRecord]) -> list[str]:
    """The targets met or missed (quick profile), the Deep LSTM's test accuracy, then how
    each cell's run was chosen (paper profile) or every run's scores (the others)."""
    profile = profile_of(records)
    chosen = select(records)
    by_cell = {(r.spec.config["task"], r.spec.config["model"]): r for r in chosen}
    lines = []
    if profile == "quick":  # a smoke run's numbers judge nothing
        lines += _targets(by_cell)
    if profile != "smoke":
        lines += _deep_lstm(by_cell)
    if profile == "paper":
        return lines + _selection_lines(records, chosen)
    return lines + _run_lines(records, chosen)


def _targets(by_cell: _Cells) -> list[str]:
    lines = []
    for task, model in _MUST_GENERALISE:
        if (task, model) in by_cell:
            score = by_cell[task, model].metrics["test_coarse"]
            verdict = "meets" if score >= 0.95 else "misses"
            lines.append(
                f"{MODEL_NAMES[model]} on {task}: test coarse accuracy {score:.2f} "
                f"{verdict} the target of 0.95 at the longer test lengths."
            )
    return lines


def _deep_lstm(by_cell: _Cells) -> list[str]:
    baseline = [
        f"{task} {by_cell[task, 'lstm'].metrics['test_coarse']:.2f}"
        for task in ("copy", "reversal")
        if (task, "lstm") in by_cell
    ]
    return [f"Deep LSTM test coarse accuracy: {', '.join(baseline)}."] if baseline else []


def _run_lines(records: Sequence[RunRecord], chosen: Sequence[RunRecord]) -> list[str]:
    """Every run's scores and curriculum, and whether its cell reports it."""
    lines = []
    for r in sorted(records, key=lambda r: r.spec.name):
        c, m = r.spec.config, r.metrics
        start = _start(r)
        name = MODEL_NAMES[c["model"]] + (f" ({start} start)" if start else "")
        reported = any(r is kept for kept in chosen)
        note = "" if reported else "; not reported: the other start trains better"
        lines.append(
            f"{c['task']}, {name}: test coarse {m['test_coarse']:.2f}, "
            f"fine {m['test_fine']:.2f} (train {m['train_coarse']:.2f} / "
            f"{m['train_fine']:.2f}; curriculum reached length {m['curriculum']:.0f}{note})."
        )
    return lines


def _selection_lines(records: Sequence[RunRecord], chosen: Sequence[RunRecord]) -> list[str]:
    """For each cell, the configuration chosen and how many finished runs it beat."""
    lines = []
    for r in chosen:
        c = r.spec.config
        cell = (c["task"], c["model"], r.spec.seed)
        candidates = sum(
            (o.spec.config["task"], o.spec.config["model"], o.spec.seed) == cell for o in records
        )
        lines.append(
            f"{c['task']}, {MODEL_NAMES[c['model']]}: {_configuration(c)}, training "
            f"perplexity {training_perplexity(r):.4f}, the lowest of {candidates} finished runs."
        )
    return lines


def _configuration(config: Mapping[str, Any]) -> str:
    """The grid coordinates a paper run was chosen at, as the table shows them."""
    depth = f"{config['layers']} layers, " if config["model"] == "lstm" else ""
    return f"{depth}hidden {config['hidden']}, lr {config['lr']:.0e}"


def _start(record: RunRecord) -> str:
    """The quick profile's start a run was made with: "" for a model with one start, or a
    run (the paper's) made with none of them."""
    return str(record.spec.tags.get("start", ""))
