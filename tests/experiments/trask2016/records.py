"""Stored runs of trask2016's quick profile, made up, for the tests of its report."""

from __future__ import annotations

from typing import Any

from memrnn.experiments.base import RunRecord
from memrnn.experiments.trask2016 import GATE_COLUMNS, Trask2016


def record(
    name: str, seed: int, use: float, long_acc: float, artifacts: dict[str, Any] | None = None
) -> RunRecord:
    """The quick run ``name/seed{seed}``, its gates at 0.5 but ``stack_use`` and its
    training accuracy perfect, as if it had run for 2 seconds."""
    spec = next(s for s in Trask2016().runs("quick") if s.name == f"{name}/seed{seed}")
    metrics = {key: 0.5 for key in GATE_COLUMNS} | {
        "stack_use": use,
        "long_seq_acc": long_acc,
        "long_token_acc": 1.0,
        "train_token_acc": 1.0,
        "train_seq_acc": 1.0,
    }
    return RunRecord(spec, metrics, artifacts or {}, "test", 2.0)
