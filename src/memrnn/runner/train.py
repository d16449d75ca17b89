"""One experiment run trained by the loop of :mod:`memrnn.training`.

Three random streams, all derived from the run's seed, keep a resumed run identical to
an uninterrupted one: torch's generator initialises the model, one NumPy generator draws
the training batches (its state is checkpointed), and every evaluation draws its data
from a generator seeded by (seed, step), so evaluating never disturbs training.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from memrnn.errors import UserError
from memrnn.experiments.base import (
    Experiment,
    FittedExperiment,
    RunContext,
    RunOutput,
    Trainable,
    TrainedExperiment,
)
from memrnn.experiments.config import TrainConfig, make_optimizer
from memrnn.training import LoopResult, StepReport, train_loop
from memrnn.training.streams import artifacts_rng, data_rng, eval_rng


@dataclass(frozen=True)
class Progress:
    """Where a run is, for a progress bar."""

    step: int
    steps: int
    loss: float
    sequences_per_second: float
    metrics: dict[str, float] | None = None


def resolve_device(name: str) -> torch.device:
    """``auto`` is CUDA when a GPU is present, else the CPU; a CUDA device asked for must
    be present (a UserError naming it otherwise)."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise UserError(f"device: {name!r} is not a device torch knows") from None
    if device.type == "cuda":
        present = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if present == 0:
            raise UserError(f"device: {name} was asked for but no CUDA device is present")
        if device.index is not None and device.index >= present:
            raise UserError(
                f"device: {name} was asked for but only {present} CUDA device(s) are present"
            )
    return device


def run_context(
    config: TrainConfig,
    data: Path | None,
    checkpoint: Path | None = None,
    resume: bool = False,
) -> RunContext:
    """The context of a run of ``config``: its device resolved, its data folder, and for a
    fitted run its checkpoint."""
    return RunContext(resolve_device(config.device), data, checkpoint, resume)


def train(
    experiment: TrainedExperiment[Any],
    config: TrainConfig,
    *,
    data: Path | None = None,
    checkpoint: Path | None = None,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutput:
    """Train one run of ``experiment`` and return its final metrics, history and artifacts.

    ``data`` is the folder where the run keeps data sets it makes once (None: in memory).
    With ``checkpoint``, state is written there every ``config.checkpoint_every`` steps
    and at the end; with ``resume`` too, training continues from that file if it exists.
    """
    check_config(experiment, config)
    started = time.perf_counter()
    fitted = experiment.fitted(config, run_context(config, data, checkpoint, resume))
    if fitted is not None:
        return fitted
    context = run_context(config, data)
    torch.manual_seed(config.seed)
    run = experiment.build(config, context)
    settings = config.loop_settings()

    def report(step: StepReport) -> None:
        if on_progress is not None:
            rate = step.steps_per_second * config.batch_size
            on_progress(Progress(step.step, step.steps, step.loss, rate, step.metrics))

    loop_started = time.perf_counter()
    result = train_loop(
        run,
        make_optimizer(config, run.model.parameters()),
        settings,
        data_rng=data_rng(config.seed),
        eval_rng=eval_rng(config.seed),
        checkpoint=checkpoint,
        resume=resume,
        on_step=report,
    )
    return experiment.finished(config, trained_output(run, config, result, loop_started - started))


def trained_output(
    run: Trainable, config: TrainConfig, result: LoopResult, set_up: float, members: int = 1
) -> RunOutput:
    """A trained run's output: its loop's metrics and history, and its artifacts. Its
    wall time is the loop's (every session of a resumed run; its share of a loop that
    trained ``members`` runs at once), its set-up, and the artifacts' time."""
    started = time.perf_counter()
    with torch.no_grad():
        artifacts = run.artifacts(artifacts_rng(config.seed))
    wall = result.wall_seconds / members + set_up + time.perf_counter() - started
    final = {
        **result.metrics,
        "steps": float(result.steps_done),
        "stopped_early": float(result.stopped_early),
    }
    return RunOutput(final, result.history, artifacts, result.steps_done, wall)


def run(
    experiment: Experiment[Any],
    config: TrainConfig,
    *,
    data: Path | None = None,
    checkpoint: Path | None = None,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutput:
    """One run of ``experiment``, by its kind: a ``FittedExperiment`` carries it out itself
    (given ``checkpoint`` and ``resume`` in its context; ``on_progress`` does not apply),
    a ``TrainedExperiment``'s is trained by ``train``."""
    if isinstance(experiment, FittedExperiment):
        check_config(experiment, config)
        return experiment.fit_run(config, run_context(config, data, checkpoint, resume))
    if isinstance(experiment, TrainedExperiment):
        return train(
            experiment,
            config,
            data=data,
            checkpoint=checkpoint,
            resume=resume,
            on_progress=on_progress,
        )
    raise TypeError(
        "experiment: expected a TrainedExperiment or a FittedExperiment, got "
        f"{type(experiment).__name__}"
    )


def check_config(experiment: Experiment[Any], config: TrainConfig) -> None:
    """Everything about ``config`` that can be known before a run starts, so that no
    training time is spent on a run that must fail: TypeError unless it is the
    experiment's kind of config; ValueError naming a field with a bad value; UserError
    if its device is not present here, or its ``monitor`` names no metric that a trained
    experiment's runs report (``TrainedExperiment.metrics``)."""
    if not isinstance(config, experiment.config_type):
        raise TypeError(
            f"config: {experiment.name} needs a {experiment.config_type.__name__}, "
            f"got {type(config).__name__}"
        )
    config.validate()
    resolve_device(config.device)
    if isinstance(experiment, TrainedExperiment) and experiment.metrics:
        if config.monitor not in experiment.metrics:
            raise UserError(
                f"monitor: {experiment.name}'s runs report no metric {config.monitor!r}; "
                f"they report {', '.join(experiment.metrics)}"
            )
