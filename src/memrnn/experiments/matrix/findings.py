"""What the matrix shows, in sentences computed from the selected runs: which model solves
what at each level, and whether the pattern the literature predicts holds.

The findings judge a cell by its median seed, where the table shows the best seed as
Delétang et al. (2023, Table 2) do: a conclusion that should hold again for other seeds
cannot rest on the luckiest one. The best of n seeds grows with n and flips whenever a
single seed crosses the 90% line; with cells near the line, as at the quick profile's
scale, the best seed gives another verdict for almost every other seed set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memrnn.experiments.base import RunRecord
from memrnn.experiments.matrix.protocol import LEVELS, protocol
from memrnn.experiments.matrix.tables import (
    SOLVED,
    cells,
    middle,
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


Cell = tuple[str, str]  # (model, task)


@dataclass(frozen=True)
class Verdict:
    """A prediction judged on the cells it names that ran (their median-seed scores), and
    those of them against it."""

    prediction: Prediction
    scores: dict[Cell, float]
    against: tuple[Cell, ...]

    @property
    def holds(self) -> bool:
        return not self.against

    def sentence(self, counted: bool) -> str:
        """The verdict in words: "Predicted: <claim>. Holds here", or "Does not hold here"
        (with ``counted``, "Does not hold for n of m here")."""
        if self.holds:
            verdict = "Holds"
        elif counted:
            verdict = f"Does not hold for {len(self.against)} of {len(self.scores)}"
        else:
            verdict = "Does not hold"
        return f"Predicted: {self.prediction.claim}. {verdict} here"


def judge(prediction: Prediction, scores: dict[Cell, float]) -> Verdict | None:
    """``prediction`` judged on ``scores``; None when no cell it names ran."""
    pairs = {
        (m, t): scores[(m, t)]
        for m in prediction.models
        for t in prediction.tasks
        if (m, t) in scores
    }
    if not pairs:
        return None
    against = tuple(sorted(c for c, v in pairs.items() if (v >= SOLVED) == prediction.fail))
    return Verdict(prediction, pairs, against)


def conclusions(records: Sequence[RunRecord]) -> list[str]:
    """What the records conclude, without numbers: the models that solve every task of
    each level, and whether each prediction holds, from the median seed of each cell.
    Where a prediction does not hold, how many cells are against it is a number, and
    goes with the numbers (``report_findings``)."""
    scores = {cell: middle(runs) for cell, runs in cells(records).items()}
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
        verdict = judge(prediction, scores)
        if verdict is not None:
            found.append(verdict.sentence(counted=False))
    return found


def stability(records: Sequence[RunRecord]) -> str | None:
    """Whether the conclusions stay the same with any one seed left out, and which seed
    changes which conclusion where they do not; None with fewer than two seeds."""
    seeds = sorted({r.spec.seed for r in records})
    if len(seeds) < 2:
        return None
    found = conclusions(records)
    changed = []
    for seed in seeds:
        without = conclusions([r for r in records if r.spec.seed != seed])
        gone = [f"'{a}'" for a in found if a not in without]
        new = [f"'{b}'" for b in without if b not in found]
        if gone or new:
            changed.append(f"without seed {seed}, {', '.join(new) or 'nothing'} in place of "
                           f"{', '.join(gone) or 'nothing'}")  # fmt: skip
    if not changed:
        return f"Stable: the conclusions above are the same with any one of seeds {seeds} left out."
    return f"Not stable: {'; '.join(changed)}."


def _why(verdict: Verdict, by_cell: dict[Cell, list[RunRecord]]) -> str:
    """Why the cells against the prediction are against it, from their median training
    score: a model that reaches 90% on fresh sequences of the training lengths but not
    beyond did not generalise; one that does not reach it there was not trained enough to
    fit them (more steps or another rate may change it)."""
    fitted: list[str] = []
    unfitted: list[str] = []
    for model, task in verdict.against:
        train = middle(by_cell[(model, task)], "train_score")
        (fitted if train >= SOLVED else unfitted).append(f"{model} on {task} {train:.2f}")
    return _listed(
        "Training-length score of those against it: ",
        ("fitted the training lengths but did not generalise", fitted),
        ("did not fit the training lengths either", unfitted),
    )


def _beside_plain(verdict: Verdict, scores: dict[Cell, float]) -> str:
    """For a memory model's prediction that does not hold: which of the cells against it
    still score above every plain RNN and LSTM on the same task (the pattern, short of
    the 90% line) and which do not."""
    plain = PREDICTIONS[0].models
    above: list[str] = []
    not_above: list[str] = []
    for model, task in verdict.against:
        rivals = [scores[(p, task)] for p in plain if (p, task) in scores]
        if not rivals:
            continue
        ours, theirs = scores[(model, task)], max(rivals)
        (above if ours > theirs else not_above).append(
            f"{model} on {task} ({ours:.2f} against {theirs:.2f})"
        )
    return _listed(
        "Beside the best plain model on the same task, ",
        ("above every plain RNN and LSTM", above),
        ("not above them", not_above),
    )


def _listed(lead: str, *groups: tuple[str, list[str]]) -> str:
    """The groups that have items, after ``lead``, as one sentence (with a space before
    it, to follow another): "<lead><label>: a, b; <label>: c."; empty if none has any."""
    parts = [f"{label}: {', '.join(items)}" for label, items in groups if items]
    return f" {lead}{'; '.join(parts)}." if parts else ""


def report_findings(records: Sequence[RunRecord]) -> list[str]:
    """The sentences of the report, from the median seed of each cell: the conclusions
    with their numbers (and, for a prediction that does not hold, how many cells are
    against it, whether they fit the training lengths and whether a memory model that
    falls short still beats the plain ones), whether they stay the same with any one seed
    left out, the time."""
    by_cell = cells(records)
    scores = {cell: middle(runs) for cell, runs in by_cell.items()}
    found = [
        f"{sentence} (a score of {SOLVED:.0%} or more over the test lengths, median seed)."
        for sentence in conclusions(records)
        if not sentence.startswith("Predicted")
    ]
    for prediction in PREDICTIONS:
        verdict = judge(prediction, scores)
        if verdict is not None:
            scores_of = sorted(verdict.scores.items())
            listed = ", ".join(f"{m} on {t} {v:.2f}" for (m, t), v in scores_of)
            why = _why(verdict, by_cell)
            beside = "" if prediction.fail else _beside_plain(verdict, scores)
            found.append(f"{verdict.sentence(counted=True)}: {listed}.{why}{beside}")
    stable = stability(records)
    if stable is not None:
        found.append(stable)
    seconds = sum(r.wall_seconds for r in records)
    found.append(f"{len(records)} runs, {seconds / 60:.1f} minutes of training in all.")
    return found
