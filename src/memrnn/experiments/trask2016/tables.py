"""The report's tables and findings: the gates beside the tutorial's, the seeds that use
the stack and reverse longer sequences, and the accuracy of each variant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memrnn.experiments.base import RunRecord
from memrnn.experiments.tables import Cell, Table, group, in_order, mean_cell, paper_number
from memrnn.experiments.trask2016.gates import GATE_COLUMNS
from memrnn.experiments.trask2016.paper import PAPER
from memrnn.experiments.trask2016.variants import VARIANTS

ACCURACY_COLUMNS = ["train_token_acc", "train_seq_acc", "long_token_acc", "long_seq_acc"]
Runs = Mapping[str, list[RunRecord]]
"""Records by variant, as ``by_variant`` groups them."""


def by_variant(records: Sequence[RunRecord]) -> dict[str, list[RunRecord]]:
    """Records grouped by variant, in the order of ``VARIANTS``, each sorted by seed."""
    return in_order(group(records, "variant"), VARIANTS)


def _gates(runs: Runs) -> Table:
    rows = {
        variant: {
            key: mean_cell(variant_runs, key, paper=paper_number(PAPER, "gates", variant, key))
            for key in GATE_COLUMNS
        }
        for variant, variant_runs in runs.items()
    }
    return Table(
        "gates",
        "Mean push and pop strength while reading (encode) and writing "
        "(decode), and stack_use, mean over seeds; the tutorial's values come from "
        "its printed traces",
        GATE_COLUMNS,
        rows,
    )


def _seeds(runs: Runs) -> Table:
    rows = {
        variant: {
            "seeds": Cell(len(variant_runs), seeds=tuple(r.spec.seed for r in variant_runs)),
            "use the stack": Cell(sum(r.metrics["stack_use"] > 0.5 for r in variant_runs)),
            "generalise": Cell(sum(r.metrics["long_seq_acc"] > 0.9 for r in variant_runs)),
        }
        for variant, variant_runs in runs.items()
    }
    return Table(
        "seeds",
        "Seeds whose controller uses the stack (stack_use > 0.5) and "
        "reverses sequences of the long length (long_seq_acc > 0.9)",
        ["seeds", "use the stack", "generalise"],
        rows,
    )


def _accuracy(runs: Runs) -> Table:
    rows = {
        variant: {key: mean_cell(variant_runs, key) for key in ACCURACY_COLUMNS}
        for variant, variant_runs in runs.items()
    }
    return Table(
        "accuracy",
        "Greedy accuracy at the training lengths and at the long length, mean over seeds",
        ACCURACY_COLUMNS,
        rows,
    )


def report_tables(records: Sequence[RunRecord]) -> list[Table]:
    """The gates, seeds and accuracy tables, a row per variant."""
    runs = by_variant(records)
    return [_gates(runs), _seeds(runs), _accuracy(runs)]


def report_findings(records: Sequence[RunRecord]) -> list[str]:
    """A sentence per variant: its start, and how many seeds use the stack, show the
    tutorial's symptom and reverse the long length. None for the smoke profile."""
    if any(r.spec.profile == "smoke" for r in records):
        return []  # seconds of training: its counts would say nothing of the tutorial's
    lines = []
    for variant, runs in by_variant(records).items():
        used = sum(r.metrics["stack_use"] > 0.5 for r in runs)
        symptom = sum(r.metrics["stack_use"] < 0.25 for r in runs)
        general = sum(r.metrics["long_seq_acc"] > 0.9 for r in runs)
        length = runs[0].spec.config["long_length"]
        lines.append(
            f"{variant} ({VARIANTS[variant].describe()}): {used} of {len(runs)} "
            f"seeds use the stack as a stack (stack_use > 0.5), {symptom} show the "
            f"tutorial's symptom (stack_use < 0.25), {general} reverse length-{length} "
            "sequences (over 90% fully correct)."
        )
    return lines
