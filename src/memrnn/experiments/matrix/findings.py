"""What the matrix shows, in sentences computed from the selected runs: which model solves
what at each level, and whether the pattern the literature predicts holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memrnn.experiments.base import RunRecord
from memrnn.experiments.matrix.protocol import LEVELS, protocol
from memrnn.experiments.matrix.tables import SOLVED, best, cells, models_in_order, tasks_in_order


@dataclass(frozen=True)
class Prediction:
    """A claim of the literature: ``models`` solve (or, with ``fail``, do not solve) the
    tasks of ``tasks`` that the run has."""

    claim: str
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    fail: bool = False


REVERSAL = ("reversal", "reverse_string")
DYCK = ("dyck_lm", "rsm_dyck2")
COPY = ("copy", "duplicate_string")
CONTEXT_FREE = (*REVERSAL, *DYCK, "rsm_palindrome", "rsm_json", "stack_manipulation")

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


def _judge(prediction: Prediction, scores: dict[tuple[str, str], float]) -> str | None:
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
    return f"Predicted: {prediction.claim}. {verdict.capitalize()} here: {listed}."


def report_findings(records: Sequence[RunRecord]) -> list[str]:
    """The sentences of the report, from the best seed of each cell."""
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
            f"{level.capitalize()} tasks ({', '.join(level_tasks)}): {who} solved every one "
            f"(a score of {SOLVED:.0%} or more over the test lengths, best seed)."
        )
    for prediction in PREDICTIONS:
        sentence = _judge(prediction, scores)
        if sentence is not None:
            found.append(sentence)
    seconds = sum(r.wall_seconds for r in records)
    found.append(f"{len(records)} runs, {seconds / 60:.1f} minutes of training in all.")
    return found
