"""Runs that train together as one batched model (``Experiment.group_key``): K members
run by one forward and one backward (``memrnn.models.grouped``), each member with its
own initial weights, optimiser, data stream, evaluations, early stopping and checkpoint
(``memrnn.training.train_group``), and each stored as its own run.

A fitted experiment carries out its group itself (``FittedExperiment.fit_group``); a
trained experiment's group is trained here, from runs that are ``GroupableRun``s.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import torch
from torch import nn

from memrnn.experiments.base import (
    Experiment,
    FittedExperiment,
    RunOutput,
    Trainable,
    TrainedExperiment,
)
from memrnn.experiments.config import TrainConfig, make_optimizer
from memrnn.models.grouped import Grouped
from memrnn.runner.train import check_config, data_rng, eval_rng, run_context, trained_output
from memrnn.training import GroupSteps, train_group


@runtime_checkable
class GroupableRun(Trainable, GroupSteps, Protocol):
    """A trained run that can train in a group: besides ``inputs`` and ``loss_of``, the
    network whose outputs ``loss_of`` scores (``model`` itself, or a part of it)."""

    @property
    def network(self) -> nn.Module:
        """The module that maps ``inputs(batch)`` to the outputs ``loss_of`` takes."""


def run_group(
    experiment: Experiment[Any],
    configs: Sequence[TrainConfig],
    *,
    data: Path | None = None,
    checkpoints: Sequence[Path],
) -> list[RunOutput]:
    """Runs of one ``Experiment.group_key`` carried out together, each resuming from its
    checkpoint; an output per config, in order, each what the run gives alone (to float
    rounding). Every config is checked before any run starts."""
    if len(checkpoints) != len(configs):
        raise ValueError(
            f"checkpoints: expected one per config ({len(configs)}), got {len(checkpoints)}"
        )
    for config in configs:
        check_config(experiment, config)
    if isinstance(experiment, FittedExperiment):
        contexts = [
            run_context(config, data, checkpoint, resume=True)
            for config, checkpoint in zip(configs, checkpoints, strict=True)
        ]
        return experiment.fit_group(configs, contexts)
    if isinstance(experiment, TrainedExperiment):
        return train_runs(experiment, configs, data=data, checkpoints=checkpoints)
    raise TypeError(
        "experiment: expected a TrainedExperiment or a FittedExperiment, got "
        f"{type(experiment).__name__}"
    )


def train_runs(
    experiment: TrainedExperiment[Any],
    configs: Sequence[TrainConfig],
    *,
    data: Path | None = None,
    checkpoints: Sequence[Path | None],
) -> list[RunOutput]:
    """Train runs of ``experiment`` that differ only in seed or learning rate as one
    batched model, each resuming from its checkpoint where it has one."""
    started = time.perf_counter()
    context = run_context(configs[0], data)
    runs = []
    for config in configs:
        torch.manual_seed(config.seed)  # each member's weights as its run alone draws them
        run = experiment.build(config, context)
        if not isinstance(run, GroupableRun):
            raise TypeError(
                f"{experiment.name}: its runs are not GroupableRuns (inputs, loss_of, "
                "network), so they cannot train as a group"
            )
        runs.append(run)
    group = Grouped([run.network for run in runs])
    optimizers = [make_optimizer(c, run.model.parameters())
                  for c, run in zip(configs, runs, strict=True)]  # fmt: skip
    seeds = [config.seed for config in configs]
    loop_started = time.perf_counter()
    results = train_group(
        runs,
        group,
        configs[0].loop_settings(),
        optimizers=optimizers,
        data_rngs=[data_rng(config.seed) for config in configs],
        eval_rngs=[eval_rng(config.seed) for config in configs],
        checkpoints=checkpoints,
        resume=True,
        batches_from=[seeds.index(seed) for seed in seeds] if experiment.shares_batches else None,
    )
    set_up = (loop_started - started) / len(configs)
    outputs = []
    for run, config, result in zip(runs, configs, results, strict=True):
        output = trained_output(run, config, result, set_up, members=len(configs))
        output.artifacts["trained_with"] = len(configs)  # members of its batched model
        outputs.append(experiment.finished(config, output))
    return outputs
