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
from memrnn.experiments.tables import (
    Cell,
    Table,
    curve,
    group,
    median,
    paper_number,
    runs_cell,
)

# The quick profile's acceptance: these must reach test coarse accuracy 0.95.
_TARGET = 0.95
_MUST_GENERALISE = (("reversal", "stack"), ("copy", "queue"), ("reversal", "deque"),
                    ("copy", "deque"))  # fmt: skip
# (task, model) -> the runs the cell reports, one per seed
_Cells = Mapping[tuple[str, str], Sequence[RunRecord]]


def figure2a(records: Sequence[RunRecord]) -> Table:
    """Figure 2a: the chosen run of each cell, named by its configuration on the paper's
    grid, or with several seeds the median of the cell's chosen runs; a smoke run is
    compared with nothing, its numbers mean nothing."""
    profile = profile_of(records)
    by_row: dict[str, list[RunRecord]] = {}
    for r in select(records):  # in Figure 2a's order, each cell's seeds in order
        c = r.spec.config
        row = f"{_cell_of(r)} ({_configuration(c)})" if profile == "paper" else _cell_of(r)
        by_row.setdefault(row, []).append(r)

    def cell(runs: list[RunRecord], name: str) -> Cell:
        paper = (
            None if profile == "smoke" else paper_number(PAPER, "figure2a", _cell_of(runs[0]), name)
        )
        return runs_cell(runs, median(runs, name), paper=paper)

    rows = {row: {name: cell(runs, name) for name in SCORES} for row, runs in by_row.items()}
    caption = (
        "Greedy coarse and fine accuracy at the training lengths and at the longer "
        "test lengths (Figure 2a)"
    )
    if _several_seeds(records):
        caption += "; each cell the median over the seeds of the runs it reports"
    if profile == "paper":
        depths = ", ".join(f"{task} {d}" for task, d in PAPER_BEST_DEPTH.items())
        caption += (
            "; each row is the run of its grid with the lowest training perplexity, its "
            "hidden size, learning rate and Deep LSTM depth in parentheses (the depths of "
            f"the paper's Deep LSTM rows: {depths} layers)"
        )
    return Table("figure2a", caption, list(SCORES), rows)


def _several_seeds(records: Sequence[RunRecord]) -> bool:
    """Whether ``records`` hold runs of more than one seed (``--seeds``)."""
    return len({r.spec.seed for r in records}) > 1


def _cell_of(record: RunRecord) -> str:
    """The row of Figure 2a that a run belongs to, as the paper names it."""
    c = record.spec.config
    return f"{c['task']} {MODEL_NAMES[c['model']]}"


def findings(records: Sequence[RunRecord]) -> list[str]:
    """The targets met or missed (quick profile), the Deep LSTM's test accuracy, then how
    each cell's run was chosen (paper profile) or every run's scores (the others). With
    several seeds a target is judged on the median of the cell's runs."""
    profile = profile_of(records)
    chosen = select(records)
    by_cell = group(chosen, "task", "model")  # each cell's runs in the order of their seeds
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
            runs = by_cell[task, model]
            score = median(runs, "test_coarse")
            verdict = "meets" if score >= _TARGET else "misses"
            lines.append(
                f"{MODEL_NAMES[model]} on {task}: test coarse accuracy {score:.2f}"
                f"{_over_seeds(runs, 'test_coarse')} {verdict} the target of {_TARGET} at "
                f"the longer test lengths{_held(runs)}."
            )
    return lines


def _held(runs: Sequence[RunRecord]) -> str:
    """How often each run scored the target over the second half of its training: a score
    that swings while training stays perfect meets or misses the target by where the
    swing stands at the last evaluation. '' for runs without their test scores."""
    counts = []
    for r in runs:
        steps, values = curve(r, "test_coarse")
        late = [
            v for step, v in zip(steps, values, strict=True) if 2 * step > r.spec.config["steps"]
        ]
        if not late:
            return ""
        counts.append((sum(v >= _TARGET for v in late), len(late)))
    if len(counts) == 1:
        (at, of), *_ = counts
        return (
            f"; it scored {_TARGET} or more at {at} of the {of} times its test lengths were "
            "scored over its second half"
        )
    held = ", ".join(f"{at} of {of}" for at, of in counts)
    return (
        f"; its seeds scored {_TARGET} or more at {held} of the times their test lengths "
        "were scored over their second halves"
    )


def _over_seeds(runs: Sequence[RunRecord], name: str) -> str:
    """'' for one run; for several, which seeds a median is over and each one's value."""
    if len(runs) == 1:
        return ""
    seeds = ", ".join(str(r.spec.seed) for r in runs)
    values = ", ".join(f"{r.metrics[name]:.2f}" for r in runs)
    return f" (the median of seeds {seeds}: {values})"


def _deep_lstm(by_cell: _Cells) -> list[str]:
    baseline = [
        f"{task} {median(by_cell[task, 'lstm'], 'test_coarse'):.2f}"
        f"{_over_seeds(by_cell[task, 'lstm'], 'test_coarse')}"
        for task in ("copy", "reversal")
        if (task, "lstm") in by_cell
    ]
    return [f"Deep LSTM test coarse accuracy: {', '.join(baseline)}."] if baseline else []


def _run_lines(records: Sequence[RunRecord], chosen: Sequence[RunRecord]) -> list[str]:
    """Every run's scores and curriculum, and whether its cell reports it."""
    lines = []
    several = _several_seeds(records)
    for r in sorted(records, key=lambda r: (r.spec.name, r.spec.seed)):
        c, m = r.spec.config, r.metrics
        start = _start(r)
        name = MODEL_NAMES[c["model"]] + (f" ({start} start)" if start else "")
        name += f", seed {r.spec.seed}" if several else ""
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
    several = _several_seeds(records)
    for r in chosen:
        c = r.spec.config
        cell = (c["task"], c["model"], r.spec.seed)
        candidates = sum(
            (o.spec.config["task"], o.spec.config["model"], o.spec.seed) == cell for o in records
        )
        seed = f", seed {r.spec.seed}" if several else ""
        lines.append(
            f"{c['task']}, {MODEL_NAMES[c['model']]}{seed}: {_configuration(c)}, training "
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
