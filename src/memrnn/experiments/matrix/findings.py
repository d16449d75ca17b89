"""What the matrix shows, in sentences computed from the selected runs: which model solves
what at each level, and whether the pattern the literature predicts holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memrnn.experiments.base import RunRecord
from memrnn.experiments.matrix.protocol import LEVELS, protocol
from memrnn.experiments.matrix.tables import (
    SCORE,
    SOLVED,
    best,
    best_run,
    cells,
    models_in_order,
    tasks_in_order,
)


@dataclass(frozen=True)
class Prediction:
    """A claim of the literature: ``models`` solve (or, with ``fail``, do not solve) the
    tasks of ``tasks`` that the run has."""

    claim: str
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    fail: bool = False


REVERSAL = ("reversal", "reverse_string")
DYCK = ("rsm_dyck1", "rsm_dyck2", "rsm_dyck3")
COPY = ("copy", "duplicate_string")
CONTEXT_FREE = (
    *REVERSAL,
    *DYCK,
    "rsm_anbn",
    "rsm_palindrome",
    "rsm_json",
    "stack_manipulation",
    "modular_arithmetic_brackets",
    "solve_equation",
)

PREDICTIONS = (
    Prediction(
        "plain RNNs and LSTMs fail the context-free tasks beyond the training lengths "
        "(Delétang et al. 2023, section 5.1)",
        ("irnn", "gru", "lstm", "deep_lstm"),
        CONTEXT_FREE,
        fail=True,
    ),
    Prediction(
        "a stack solves reversal and Dyck (Grefenstette et al. 2015; Delétang et al. 2023)",
        ("stack_lstm", "stack_rnn"),
        (*REVERSAL, *DYCK),
    ),
    Prediction("a queue solves copy (Grefenstette et al. 2015)", ("queue_lstm",), COPY),
    Prediction(
        "a deque solves both (Grefenstette et al. 2015)", ("deque_lstm",), (*REVERSAL, *COPY)
    ),
)


def _judge(prediction: Prediction, scores: dict[tuple[str, str], float]) -> tuple[str, str] | None:
    """The verdict on ``prediction`` ("holds" or "does not hold for n of m") and the
    numbers behind it; None when no run meets it."""
    pairs = {
        (m, t): scores[(m, t)]
        for m in prediction.models
        for t in prediction.tasks
        if (m, t) in scores
    }
    if not pairs:
        return None
    against = {pair: score for pair, score in pairs.items() if (score >= SOLVED) == prediction.fail}
    listed = ", ".join(f"{m} on {t} {s:.2f}" for (m, t), s in sorted(pairs.items()))
    verdict = "holds" if not against else f"does not hold for {len(against)} of {len(pairs)}"
    return verdict, listed


def conclusions(records: Sequence[RunRecord]) -> list[str]:
    """What the records conclude, without the numbers: the models that solve every task
    of each level, and each prediction's verdict, from the best seed of each cell."""
    scores = {cell: best(runs) for cell, runs in cells(records).items()}
    tasks, models = tasks_in_order(records), models_in_order(records)
    found = []
    for level in LEVELS:
        level_tasks = [t for t in tasks if protocol(t).level == level]
        if not level_tasks:
            continue
        solvers = [m for m in models if all(scores.get((m, t), 0.0) >= SOLVED for t in level_tasks)]
        who = ", ".join(solvers) if solvers else "no model"
        found.append(
            f"{level.capitalize()} tasks ({', '.join(level_tasks)}): {who} solved every one"
        )
    for prediction in PREDICTIONS:
        judged = _judge(prediction, scores)
        if judged is not None:
            found.append(f"Predicted: {prediction.claim}. {judged[0].capitalize()} here")
    return found


def seed_sets(records: Sequence[RunRecord]) -> tuple[list[int], list[int]] | None:
    """The seeds of ``records`` in two halves (the first half of the sorted seeds, and the
    rest); None with fewer than two seeds."""
    seeds = sorted({r.spec.seed for r in records})
    if len(seeds) < 2:
        return None
    half = len(seeds) // 2
    return seeds[:half], seeds[half:]


def stability(records: Sequence[RunRecord]) -> str | None:
    """Whether the conclusions of the two seed sets agree, and where they differ."""
    halves = seed_sets(records)
    if halves is None:
        return None
    first, second = (conclusions([r for r in records if r.spec.seed in seeds]) for seeds in halves)
    sets = f"seeds {halves[0]} and seeds {halves[1]}"
    if first == second:
        return f"Stable: the conclusions above are the same from {sets} alone."
    differ = [f"'{a}' / '{b}'" for a, b in zip(first, second, strict=False) if a != b]
    return f"Not stable: from {sets} alone the conclusions differ: {'; '.join(differ)}."


def _why(prediction: Prediction, runs: dict[tuple[str, str], RunRecord]) -> str:
    """Why the cells against ``prediction`` are against it, from their best seed: a
    model that reaches 90% on fresh sequences of the training lengths but not beyond
    did not generalise; one that does not reach it there was not trained enough to fit
    them (more steps or another rate may change it)."""
    fitted: list[str] = []
    unfitted: list[str] = []
    for (model, task), run in sorted(runs.items()):
        if (run.metrics[SCORE] >= SOLVED) == prediction.fail:  # as `_judge` counts them
            train = run.metrics["train_score"]
            (fitted if train >= SOLVED else unfitted).append(f"{model} on {task} {train:.2f}")
    parts = []
    if fitted:
        parts.append(f"fitted the training lengths but did not generalise: {', '.join(fitted)}")
    if unfitted:
        parts.append(f"did not fit the training lengths either: {', '.join(unfitted)}")
    return f" Training-length score of those against it: {'; '.join(parts)}." if parts else ""


def report_findings(records: Sequence[RunRecord]) -> list[str]:
    """The sentences of the report, from the best seed of each cell: the conclusions with
    their numbers (and, for a prediction that does not hold, whether its exceptions fit
    the training lengths), whether two halves of the seeds conclude the same, the time."""
    by_cell = cells(records)
    scores = {cell: best(runs) for cell, runs in by_cell.items()}
    best_runs = {cell: best_run(runs) for cell, runs in by_cell.items()}
    found = [
        f"{sentence} (a score of {SOLVED:.0%} or more over the test lengths, best seed)."
        for sentence in conclusions(records)
        if not sentence.startswith("Predicted")
    ]
    for prediction in PREDICTIONS:
        judged = _judge(prediction, scores)
        if judged is not None:
            verdict, listed = judged
            pairs = {(m, t) for m in prediction.models for t in prediction.tasks}
            why = _why(prediction, {c: r for c, r in best_runs.items() if c in pairs})
            found.append(
                f"Predicted: {prediction.claim}. {verdict.capitalize()} here: {listed}.{why}"
            )
    stable = stability(records)
    if stable is not None:
        found.append(stable)
    seconds = sum(r.wall_seconds for r in records)
    found.append(f"{len(records)} runs, {seconds / 60:.1f} minutes of training in all.")
    return found
