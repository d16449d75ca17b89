"""One cell of the matrix, carried out: a registered model trained on a registered task's
lengths up to N by the training loop (a reservoir model fitted instead: ``reservoir``),
then scored at every length up to the test bound (``scoring``). The model evaluated is
the last one; selecting among learning rates or seeds reads only the training-length
metrics (``tables``), never the test lengths.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.experiments.base import RunContext, RunOutput
from memrnn.experiments.config import make_optimizer
from memrnn.experiments.matrix.config import MatrixConfig
from memrnn.experiments.matrix.reservoir import RESERVOIR_MODELS, fit_reservoir_cell
from memrnn.experiments.matrix.scoring import (
    length_bins,
    range_evaluation,
    score_sequences,
    test_scores,
)
from memrnn.models.grouped import Grouped, groupable
from memrnn.models.registry import build_model_for
from memrnn.tasks import StackTask, Task, TaskBatch, make_task
from memrnn.training import GROUPED, LoopResult, train_group, train_loop
from memrnn.training.streams import artifacts_rng, data_rng, eval_rng
from memrnn.validation import check_choice

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
    if config.model in RESERVOIR_MODELS:
        if not isinstance(task, StackTask):
            raise ValueError(f"model: {config.model} needs a task with stack actions")
        return _scored(task, config, fit_reservoir_cell(config, task, shortest(task)))
    steps = _cell_steps(config, task, context)
    loop_started = time.perf_counter()
    result = train_loop(
        steps,
        make_optimizer(config, steps.model.parameters()),
        config.loop_settings(),
        data_rng=data_rng(config.seed),
        eval_rng=eval_rng(config.seed),
        checkpoint=context.checkpoint,
        resume=context.resume,
    )
    return _finished(steps, result, loop_started - started, time.perf_counter())


def fit_cells(configs: Sequence[MatrixConfig], contexts: Sequence[RunContext]) -> list[RunOutput]:
    """Cells that differ only in seed and learning rate, trained together as one batched
    model (``memrnn.models.grouped``), each member as ``fit_cell`` would train it alone:
    its own initial weights, batches, evaluations and checkpoint. Cells of one seed read
    the same batches, which are drawn once for all of them."""
    started = time.perf_counter()
    task = make_cell_task(configs[0])
    members = [_cell_steps(c, task, context) for c, context in zip(configs, contexts, strict=True)]
    group = Grouped([member.model for member in members])
    loop_started = time.perf_counter()
    results = train_group(
        members,
        group,
        configs[0].loop_settings(),
        lrs=[c.lr for c in configs],
        weight_decay=configs[0].weight_decay,
        optimizer=check_choice("optimizer", configs[0].optimizer, GROUPED),
        data_rngs=[data_rng(c.seed) for c in configs],
        eval_rngs=[eval_rng(c.seed) for c in configs],
        checkpoints=[context.checkpoint for context in contexts],
        resume=contexts[0].resume,
        batches_from=[[c.seed for c in configs].index(c.seed) for c in configs],
    )
    set_up = (loop_started - started) / len(configs)
    outputs = []
    for member, result in zip(members, results, strict=True):
        output = _finished(member, result, set_up, time.perf_counter(), len(configs))
        output.artifacts["trained_with"] = len(configs)  # members of its batched model
        outputs.append(output)
    return outputs


def can_group(model: str, task: str) -> bool:
    """Whether cells of ``model`` on ``task`` can train as one batched model."""
    return model not in RESERVOIR_MODELS and _groupable(model, task)


@cache
def _groupable(model: str, task: str) -> bool:
    return groupable(build_model_for(model, make_task(task)))


def _cell_steps(config: MatrixConfig, task: Task, context: RunContext) -> CellSteps:
    """The cell's untrained model, its weights drawn from the run's seed, on its device."""
    with torch.random.fork_rng(devices=[]):  # the seed sets the weights, nothing global
        torch.manual_seed(config.seed)
        model = build_model_for(config.model, task, **model_options(config, task))
    return CellSteps(task, model.to(context.device), config, context.device)


def _finished(
    steps: CellSteps, result: LoopResult, set_up: float, started: float, members: int = 1
) -> RunOutput:
    """The trained cell's output: its loop's metrics and history, and its range
    evaluation at every length up to ``test_max``, scored. Its wall time counts its
    share of a loop that trained ``members`` runs at once."""
    task, config, model = steps.task, steps.config, steps.model
    bins = length_bins(shortest(task), config.test_max)
    curves = range_evaluation(
        task,
        lambda batch: model(steps.on_device(batch).inputs),
        artifacts_rng(config.seed),
        bins,
        config.eval_size,
    )
    metrics = {**result.metrics, "steps": float(result.steps_done)}
    parameters = sum(p.numel() for p in model.parameters())
    # the loop's wall time spans every session of a resumed run; add this one's set-up
    # and range evaluation
    wall = result.wall_seconds / members + set_up + (time.perf_counter() - started)
    output = RunOutput(
        metrics, result.history, {**curves, "parameters": parameters}, result.steps_done, wall
    )
    return _scored(task, config, output)


def _scored(task: Task, config: MatrixConfig, output: RunOutput) -> RunOutput:
    """``output`` with its test scores, from the range evaluation in its artifacts."""
    scored: dict[str, Any] = test_scores(task, output.artifacts, config.train_max)
    output.metrics.update(scored["metrics"])
    output.artifacts["scored_by"] = scored["scored_by"]
    return output
