"""How the matrix scores a model, trained or fitted: Delétang et al.'s (2023, section 4)
range evaluation, per sequence the fraction of its scored tokens that are right (and,
stricter, whether all are), averaged over sequences and then over the test lengths.
Beside it, their own accuracy: the scored tokens right over all the scored tokens of a
length's batch, pooled (the two differ where the answers' lengths vary within a length:
stack manipulation, binary addition and multiplication), averaged over the test lengths.

A task whose outputs are values at every step (the RSM benchmarks of Paassen et al.
2021) is scored by the stricter fraction instead: most of its per-step targets are easy,
so a model that has learned nothing still gets most steps right.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from memrnn.tasks import Task, TaskBatch
from memrnn.tasks.losses import output_values
from memrnn.tasks.scoring import class_hits, value_hits


@dataclass(frozen=True)
class Scores:
    """Per-sequence scores of one batch: all scored tokens right, the fraction right, and
    the counts of scored tokens right and scored."""

    sequences: Tensor
    tokens: Tensor
    hits: Tensor
    scored: Tensor

    def pooled(self) -> float:
        """The batch's scored tokens right over its scored tokens (Delétang et al.)."""
        return float(self.hits.sum() / self.scored.sum().clamp(min=1))


def score_sequences(task: Task, outputs: Tensor, batch: TaskBatch) -> Scores:
    """Each sequence's sequence accuracy (0 or 1) and token accuracy, on ``batch``."""
    mask = batch.mask.to(outputs.device)
    if task.output_kind == "classes":
        hits = class_hits(outputs, batch.targets, mask)
    else:
        hits = value_hits(output_values(task.value_loss, outputs), batch.targets, mask)
    right, scored = hits.sum(dim=1).double(), mask.sum(dim=1).double()
    return Scores((hits | ~mask).all(dim=1).double(), right / scored.clamp(min=1), right, scored)


def length_bins(low: int, high: int) -> list[tuple[int, int]]:
    """The lengths low .. high in bins of two, (L, L + 1): some tasks have only even or
    only odd lengths (Dyck strings with their end symbol, bigram flip), so each bin holds
    a length every task has; a last length left alone shares a bin with the one before."""
    bins = [(length, min(length + 1, high)) for length in range(low, high + 1, 2)]
    if len(bins) > 1 and bins[-1][0] == bins[-1][1]:
        bins[-1] = (high - 1, high)
    return bins


@torch.no_grad()
def range_evaluation(
    task: Task,
    outputs_of: Callable[[TaskBatch], Tensor],
    rng: np.random.Generator,
    bins: list[tuple[int, int]],
    size: int,
) -> dict[str, list[Any]]:
    """Sequence, token and pooled token accuracy of ``outputs_of`` in each bin of lengths,
    ``size`` fresh sequences each; a bin is named by its shorter length."""
    accuracy, tokens, pooled = [], [], []
    for low, high in bins:
        batch = task.sample_batch(rng, size, low, high)
        scores = score_sequences(task, outputs_of(batch), batch)
        accuracy.append(float(scores.sequences.mean()))
        tokens.append(float(scores.tokens.mean()))
        pooled.append(scores.pooled())
    return {"lengths": [low for low, _ in bins], "accuracy": accuracy, "token_accuracy": tokens,
            "pooled_token_accuracy": pooled}  # fmt: skip


def scores_beyond(curves: Mapping[str, list[float]], train_max: int) -> dict[str, float]:
    """The means over the test lengths (those above ``train_max``) of the accuracies
    (sequence, token, and pooled token where the curves have it)."""
    beyond = [i for i, length in enumerate(curves["lengths"]) if length > train_max]
    if not beyond:
        raise ValueError(f"train_max: no test length above {train_max} was evaluated")
    names = {"accuracy": "test_accuracy", "token_accuracy": "test_token_accuracy",
             "pooled_token_accuracy": "test_pooled_token_accuracy"}  # fmt: skip
    return {
        metric: float(np.mean([curves[curve][i] for i in beyond]))
        for curve, metric in names.items()
        if curve in curves
    }


def test_scores(task: Task, curves: Mapping[str, list[float]], train_max: int) -> dict[str, Any]:
    """The test metrics of ``curves``: both accuracies beyond ``train_max`` and
    ``test_score``, the one the task is scored by (``scored_by``: tokens or sequences)."""
    beyond = scores_beyond(curves, train_max)
    by = "tokens" if task.output_kind == "classes" else "sequences"
    score = beyond["test_token_accuracy" if by == "tokens" else "test_accuracy"]
    return {"metrics": {**beyond, "test_score": score}, "scored_by": by}
