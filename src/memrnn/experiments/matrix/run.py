"""One cell of the matrix: a registered model on a registered task's lengths up to N, as
the runner trains it (``CellSteps``; a reservoir model fitted instead: ``reservoir``),
then scored at every length up to the test bound (``scoring``). The model evaluated is
the last one; selecting among learning rates or seeds reads only the training-length
metrics (``tables``), never the test lengths.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.experiments.base import RunOutput
from memrnn.experiments.matrix.config import MatrixConfig
from memrnn.experiments.matrix.memory_use import memory_use
from memrnn.experiments.matrix.reservoir import RESERVOIR_MODELS, fit_reservoir_cell
from memrnn.experiments.matrix.scoring import (
    length_bins,
    range_evaluation,
    score_sequences,
    test_scores,
)
from memrnn.models.grouped import groupable
from memrnn.models.registry import build_model_for
from memrnn.tasks import StackTask, Task, TaskBatch, make_task
from memrnn.tasks.chomsky.layout import ChomskyTask

_SHAPE_PROBE = 99  # the stream of the one batch that measures the longest sequence

# Options a model needs from the lengths it will read: the superposition stack has a
# fixed depth and the tape a fixed number of cells (it wraps round), which the longest
# test sequence must not overflow.
_NEEDS_DEPTH = {"stack_rnn": "stack_depth", "tape_rnn": "tape_size"}
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


class CellSteps:
    """The cell as the training loop drives it: batches of the training lengths, the task's
    loss, and an evaluation on fresh sequences of the training lengths."""

    def __init__(self, task: Task, model: nn.Module, config: MatrixConfig, device: torch.device):
        self.task, self._model, self.config, self.device = task, model, config, device
        self.lengths = (shortest(task), max(shortest(task), config.train_max))

    @property
    def model(self) -> nn.Module:
        return self._model

    @property
    def network(self) -> nn.Module:
        """The module whose outputs ``loss_of`` scores: the model itself."""
        return self._model

    def on_device(self, batch: TaskBatch) -> TaskBatch:
        """``batch`` on the run's device."""
        return batch.to(self.device)

    def training_batch(self, rng: np.random.Generator) -> TaskBatch:
        batch = self.task.sample_batch(rng, self.config.batch_size, *self.lengths)
        return self.on_device(batch)

    def inputs(self, batch: TaskBatch) -> Tensor:
        """What the model reads of ``batch``."""
        return batch.inputs

    def loss_of(self, outputs: Tensor, batch: TaskBatch) -> Tensor:
        """The task's loss, given the model's outputs on ``batch``."""
        return self.task.loss(outputs, batch)

    def loss(self, batch: TaskBatch) -> Tensor:
        return self.loss_of(self.model(batch.inputs), batch)

    @torch.no_grad()
    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
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

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        """The range evaluation: the trained model scored at every length up to
        ``test_max`` (``scoring``); its parameter count; and, for a model with gates, how
        much it used its memory at its longest training lengths (``memory_use``)."""
        bins = length_bins(shortest(self.task), self.config.test_max)
        model = self.model
        curves = range_evaluation(
            self.task,
            lambda batch: model(self.on_device(batch).inputs),
            rng,
            bins,
            self.config.eval_size,
        )
        longest = (max(self.lengths[0], self.lengths[1] - 1), self.lengths[1])
        use = memory_use(model, self.task, rng, longest, self.config.eval_size)
        return {
            **curves,
            "parameters": sum(p.numel() for p in model.parameters()),
            **({"memory_use": use} if use is not None else {}),
        }


def model_options(config: MatrixConfig, task: Task) -> dict[str, Any]:
    """The model's sizes: its width (the hidden units, or a Transformer's d_model), and
    what the longest test sequence needs; on Delétang et al.'s tasks, their Transformer
    encoder and the input length that their Tape-RNN jumps."""
    options: dict[str, Any] = {_WIDTH.get(config.model, "hidden_size"): config.hidden_size}
    if config.model == "transformer" and isinstance(task, ChomskyTask):
        return options | {"causal": False}  # their encoder: the answer steps read the input
    if config.model == "tape_rnn" and isinstance(task, ChomskyTask):
        # its jumps go the input's length: a tape that holds the longest test input
        # (``length_token`` ends it) is enough, and each step costs the tape's size
        return options | {"tape_size": config.test_max + 1, "length_token": task.alphabet_size}
    if config.model in _NEEDS_DEPTH:
        rng = np.random.default_rng([config.seed, _SHAPE_PROBE])
        longest = 0
        # each length alone: a task may draw one length for a whole batch
        for length in range(max(shortest(task), config.test_max - 1), config.test_max + 1):
            try:
                batch = task.sample_batch(rng, 64, length, length)
            except ValueError:  # a length the task does not have (only even ones, say)
                continue
            longest = max(longest, batch.mask.shape[1])
        options[_NEEDS_DEPTH[config.model]] = longest + 1
    return options


def fitted_cell(config: MatrixConfig) -> RunOutput | None:
    """A reservoir model's cell, fitted in closed form and scored; None for a cell the
    runner trains."""
    if config.model not in RESERVOIR_MODELS:
        return None
    task = make_cell_task(config)
    if not isinstance(task, StackTask):
        raise ValueError(f"model: {config.model} needs a task with stack actions")
    return scored(config, fit_reservoir_cell(config, task, shortest(task)))


# Models whose runs train faster alone: the Tape-RNN's step is its tape's arithmetic, which
# grows with the rows, so grouping saves little launch time and costs vmap's; measured
# by ``benchmarks/batched_runs.py --model tape_rnn --task parity_check``.
_ALONE = frozenset({"tape_rnn"})


def can_group(model: str, task: str) -> bool:
    """Whether cells of ``model`` on ``task`` train as one batched model."""
    return model not in (*RESERVOIR_MODELS, *_ALONE) and _groupable(model, task)


@cache
def _groupable(model: str, task: str) -> bool:
    return groupable(build_model_for(model, make_task(task)))


def cell_steps(config: MatrixConfig, device: torch.device) -> CellSteps:
    """The cell's untrained model (its weights drawn from torch's generator, which the
    runner seeds with the run's seed) on ``device``, with its task."""
    task = make_cell_task(config)
    model = build_model_for(config.model, task, **model_options(config, task))
    return CellSteps(task, model.to(device), config, device)


def scored(config: MatrixConfig, output: RunOutput) -> RunOutput:
    """``output`` with its test scores, from the range evaluation in its artifacts."""
    task = make_cell_task(config)
    found: dict[str, Any] = test_scores(task, output.artifacts, config.train_max)
    output.metrics.update(found["metrics"])
    output.artifacts["scored_by"] = found["scored_by"]
    return output
