"""One cell of the matrix, carried out: a registered model trained on a registered task's
lengths up to N by the training loop, then scored at every length up to the test bound.

The score is Delétang et al.'s (2023, section 4): per sequence, the fraction of its scored
tokens that are right, averaged over sequences and then over the test lengths (N, bound];
the stricter fraction of sequences right at every token is kept beside it. A task whose
outputs are values at every step (the RSM benchmarks of Paassen et al. 2021) is scored
by that stricter fraction instead: most of its per-step targets are easy, so a model
that has learned nothing still gets most steps right. The model
evaluated is the last one; selecting among learning rates or seeds reads only the
training-length metrics (``tables``), never the test lengths.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.experiments.base import RunContext, RunOutput
from memrnn.experiments.matrix.config import MatrixConfig
from memrnn.models.registry import build_model_for
from memrnn.tasks import Task, TaskBatch, make_task
from memrnn.tasks.losses import output_values
from memrnn.tasks.scoring import class_hits, value_hits
from memrnn.training import LoopSettings, train_loop

_DATA, _EVAL, _RANGE = 1, 2, 3  # streams of np.random.default_rng([seed, label, ...])
_SHAPE_PROBE = 99  # the stream of the one batch that measures the longest sequence

# Options a model needs from the lengths it will read: the superposition stack has a
# fixed depth, which the longest test sequence must not overflow.
_NEEDS_DEPTH = {"stack_rnn": "stack_depth"}
# The option that sets a model's width, where it is not ``hidden_size``.
_WIDTH = {"transformer": "d_model"}


def make_cell_task(config: MatrixConfig) -> Task:
    """The cell's task, with the run's vocabulary where the task takes one."""
    return make_task(
        config.task, **({"vocab_size": config.vocab_size} if config.vocab_size else {})
    )


def shortest(task: Task) -> int:
    """The shortest length the cell trains and tests. Delétang et al. train on every
    length from 1; a transduction task starts at its shortest source (a grammar's
    shortest sentence, bigram flip's 2), not at the 8 its paper trains from."""
    return max(1, getattr(task, "shortest_source", task.train_lengths[0]))


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


class CellSteps:
    """The cell as the training loop drives it: batches of the training lengths, the task's
    loss, and an evaluation on fresh sequences of the training lengths."""

    def __init__(self, task: Task, model: nn.Module, config: MatrixConfig, device: torch.device):
        self.task, self._model, self.config, self.device = task, model, config, device
        self.lengths = (shortest(task), max(shortest(task), config.train_max))

    @property
    def model(self) -> nn.Module:
        return self._model

    def on_device(self, batch: TaskBatch) -> TaskBatch:
        """``batch`` on the run's device."""
        move = {n: getattr(batch, n).to(self.device) for n in ("inputs", "targets", "mask")}
        return TaskBatch(**move, teachers=batch.teachers)

    def training_batch(self, rng: np.random.Generator) -> TaskBatch:
        batch = self.task.sample_batch(rng, self.config.batch_size, *self.lengths)
        return self.on_device(batch)

    def loss(self, batch: TaskBatch) -> Tensor:
        return self.task.loss(self.model(batch.inputs), batch)

    @torch.no_grad()
    def evaluate(self, rng: np.random.Generator) -> dict[str, float]:
        batch = self.on_device(self.task.sample_batch(rng, self.config.eval_size, *self.lengths))
        outputs = self.model(batch.inputs)
        scores = score_sequences(self.task, outputs, batch)
        sequences, tokens = float(scores.sequences.mean()), float(scores.tokens.mean())
        return {
            "loss": float(self.task.loss(outputs, batch)),
            "train_accuracy": sequences,
            "train_token_accuracy": tokens,
            "train_score": tokens if self.task.output_kind == "classes" else sequences,
        }


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
    steps: CellSteps, rng: np.random.Generator, bins: list[tuple[int, int]]
) -> dict[str, list[float]]:
    """Sequence and token accuracy in each bin of lengths, ``eval_size`` sequences each;
    a bin is named by its shorter length."""
    accuracy, tokens = [], []
    for low, high in bins:
        batch = steps.on_device(steps.task.sample_batch(rng, steps.config.eval_size, low, high))
        scores = score_sequences(steps.task, steps.model(batch.inputs), batch)
        accuracy.append(float(scores.sequences.mean()))
        tokens.append(float(scores.tokens.mean()))
    return {"lengths": [low for low, _ in bins], "accuracy": accuracy, "token_accuracy": tokens}


def model_options(config: MatrixConfig, task: Task) -> dict[str, Any]:
    """The model's sizes: its width (the hidden units, or a Transformer's d_model), and
    what the longest test sequence needs."""
    options: dict[str, Any] = {_WIDTH.get(config.model, "hidden_size"): config.hidden_size}
    if config.model in _NEEDS_DEPTH:
        rng = np.random.default_rng([config.seed, _SHAPE_PROBE])
        low = max(shortest(task), config.test_max - 1)
        longest = task.sample_batch(rng, 64, low, config.test_max).mask.shape[1]
        options[_NEEDS_DEPTH[config.model]] = longest + 1
    return options


def fit_cell(config: MatrixConfig, context: RunContext) -> RunOutput:
    """Train the cell's model by the training loop (checkpointed in ``context``), then
    evaluate it at every length up to ``test_max``."""
    started = time.perf_counter()
    task = make_cell_task(config)
    with torch.random.fork_rng(devices=[]):  # the seed sets the weights, nothing global
        torch.manual_seed(config.seed)
        model = build_model_for(config.model, task, **model_options(config, task))
    model = model.to(context.device)
    steps = CellSteps(task, model, config, context.device)
    loop_started = time.perf_counter()
    result = train_loop(
        steps,
        torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay),
        LoopSettings(
            steps=config.steps,
            clip=config.clip,
            eval_every=config.eval_every,
            checkpoint_every=config.checkpoint_every,
            monitor=config.monitor,
            monitor_mode=config.monitor_mode,
        ),
        data_rng=np.random.default_rng([config.seed, _DATA]),
        eval_rng=lambda step: np.random.default_rng([config.seed, _EVAL, step]),
        checkpoint=context.checkpoint,
        resume=context.resume,
    )
    loop_done = time.perf_counter()
    bins = length_bins(shortest(task), config.test_max)
    curves = range_evaluation(steps, np.random.default_rng([config.seed, _RANGE]), bins)
    metrics = {**result.metrics, **scores_beyond(curves, config.train_max)}
    scored_by = "tokens" if task.output_kind == "classes" else "sequences"
    metrics["test_score"] = metrics[
        "test_token_accuracy" if scored_by == "tokens" else "test_accuracy"
    ]
    metrics["steps"] = float(result.steps_done)
    parameters = sum(p.numel() for p in model.parameters())
    artifacts = {**curves, "scored_by": scored_by, "parameters": parameters}
    # the loop's wall time spans every session of a resumed run; add this one's set-up
    # and range evaluation
    wall = result.wall_seconds + (loop_started - started) + (time.perf_counter() - loop_done)
    return RunOutput(metrics, result.history, artifacts, result.steps_done, wall)


def scores_beyond(curves: Mapping[str, list[float]], train_max: int) -> dict[str, float]:
    """The means over the test lengths (those above ``train_max``) of the two accuracies."""
    beyond = [i for i, length in enumerate(curves["lengths"]) if length > train_max]
    if not beyond:
        raise ValueError(f"train_max: no test length above {train_max} was evaluated")
    return {
        "test_accuracy": float(np.mean([curves["accuracy"][i] for i in beyond])),
        "test_token_accuracy": float(np.mean([curves["token_accuracy"][i] for i in beyond])),
    }
