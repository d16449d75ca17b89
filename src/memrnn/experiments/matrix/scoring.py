"""How the matrix scores a model, trained or fitted: Delétang et al.'s (2023, section 4)
range evaluation, per sequence the fraction of its scored tokens that are right (and,
stricter, whether all are), averaged over sequences and then over the test lengths.

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
    """Per-sequence scores of one batch: all scored tokens right, and the fraction right."""

    sequences: Tensor
    tokens: Tensor


def score_sequences(task: Task, outputs: Tensor, batch: TaskBatch) -> Scores:
    """Each sequence's sequence accuracy (0 or 1) and token accuracy, on ``batch``."""
    mask = batch.mask.to(outputs.device)
    if task.output_kind == "classes":
        hits = class_hits(outputs, batch.targets, mask)
    else:
        hits = value_hits(output_values(task.value_loss, outputs), batch.targets, mask)
    scored = mask.sum(dim=1).clamp(min=1)
    return Scores((hits | ~mask).all(dim=1).double(), hits.sum(dim=1).double() / scored)


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
    """Sequence and token accuracy of ``outputs_of`` in each bin of lengths, ``size``
    fresh sequences each; a bin is named by its shorter length."""
    accuracy, tokens = [], []
    for low, high in bins:
        batch = task.sample_batch(rng, size, low, high)
        scores = score_sequences(task, outputs_of(batch), batch)
        accuracy.append(float(scores.sequences.mean()))
        tokens.append(float(scores.tokens.mean()))
    return {"lengths": [low for low, _ in bins], "accuracy": accuracy, "token_accuracy": tokens}


def scores_beyond(curves: Mapping[str, list[float]], train_max: int) -> dict[str, float]:
    """The means over the test lengths (those above ``train_max``) of the two accuracies."""
    beyond = [i for i, length in enumerate(curves["lengths"]) if length > train_max]
    if not beyond:
        raise ValueError(f"train_max: no test length above {train_max} was evaluated")
    return {
        "test_accuracy": float(np.mean([curves["accuracy"][i] for i in beyond])),
        "test_token_accuracy": float(np.mean([curves["token_accuracy"][i] for i in beyond])),
    }


def test_scores(task: Task, curves: Mapping[str, list[float]], train_max: int) -> dict[str, Any]:
    """The test metrics of ``curves``: both accuracies beyond ``train_max`` and
    ``test_score``, the one the task is scored by (``scored_by``: tokens or sequences)."""
    beyond = scores_beyond(curves, train_max)
    by = "tokens" if task.output_kind == "classes" else "sequences"
    score = beyond["test_token_accuracy" if by == "tokens" else "test_accuracy"]
    return {"metrics": {**beyond, "test_score": score}, "scored_by": by}
