"""One experiment run trained by the loop of :mod:`memrnn.training`.

Three random streams, all derived from the run's seed, keep a resumed run identical to
an uninterrupted one: torch's generator initialises the model, one NumPy generator draws
the training batches (its state is checkpointed), and every evaluation draws its data
from a generator seeded by (seed, step), so evaluating never disturbs training.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from memrnn.experiments.base import Experiment, RunOutput, TrainConfig
from memrnn.training import LoopSettings, StepReport, train_loop

_DATA, _EVAL, _ARTIFACTS = 1, 2, 3  # stream labels for np.random.default_rng([seed, label, ...])


@dataclass(frozen=True)
class Progress:
    """Where a run is, for a progress bar."""

    step: int
    steps: int
    loss: float
    sequences_per_second: float
    metrics: dict[str, float] | None = None


def resolve_device(name: str) -> torch.device:
    """``auto`` is CUDA when a GPU is present, else the CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device: {name} was asked for but no CUDA device is present")
    return device


def make_optimizer(config: TrainConfig, params: Iterable[nn.Parameter]) -> torch.optim.Optimizer:
    """The optimiser ``config`` names, with its learning rate and weight decay."""
    lr, decay = config.lr, config.weight_decay
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=lr, weight_decay=decay)
    if config.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=decay)
    if config.optimizer == "rmsprop":
        return torch.optim.RMSprop(params, lr=lr, weight_decay=decay)
    return torch.optim.SGD(params, lr=lr, weight_decay=decay)


def train(
    experiment: Experiment,
    config: TrainConfig,
    *,
    checkpoint: Path | None = None,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutput:
    """Train one run of ``experiment`` and return its final metrics, history and artifacts.

    With ``checkpoint``, state is written there every ``config.checkpoint_every`` steps
    and at the end; with ``resume`` too, training continues from that file if it exists.
    """
    config.validate()
    started = time.perf_counter()
    device = resolve_device(config.device)
    torch.manual_seed(config.seed)
    run = experiment.build(config, device)
    settings = LoopSettings(
        steps=config.steps,
        clip=config.clip,
        eval_every=config.eval_every,
        checkpoint_every=config.checkpoint_every,
        patience=config.patience,
        monitor=config.monitor,
        monitor_mode=config.monitor_mode,  # type: ignore[arg-type]
    )

    def report(step: StepReport) -> None:
        if on_progress is not None:
            rate = step.steps_per_second * config.batch_size
            on_progress(Progress(step.step, step.steps, step.loss, rate, step.metrics))

    loop_started = time.perf_counter()
    result = train_loop(
        run,
        make_optimizer(config, run.model.parameters()),
        settings,
        data_rng=np.random.default_rng([config.seed, _DATA]),
        eval_rng=lambda step: np.random.default_rng([config.seed, _EVAL, step]),
        checkpoint=checkpoint,
        resume=resume,
        on_step=report,
    )
    loop_seconds = time.perf_counter() - loop_started
    with torch.no_grad():
        artifacts = run.artifacts(np.random.default_rng([config.seed, _ARTIFACTS]))
    # the loop's wall time spans every session of a resumed run; add this one's set-up
    wall = result.wall_seconds + time.perf_counter() - started - loop_seconds
    final = {
        **result.metrics,
        "steps": float(result.steps_done),
        "stopped_early": float(result.stopped_early),
    }
    return RunOutput(final, result.history, artifacts, result.steps_done, wall)


def run(
    experiment: Experiment,
    config: TrainConfig,
    *,
    checkpoint: Path | None = None,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutput:
    """One run of ``experiment``: its own ``fit_run`` if it has one, else ``train``."""
    config.validate()
    fitted = experiment.fit_run(config)
    if fitted is not None:
        return fitted
    return train(experiment, config, checkpoint=checkpoint, resume=resume, on_progress=on_progress)
