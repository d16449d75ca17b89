"""The training loop: seeded, checkpointed, resumable, with periodic evaluation.

Three random streams, all derived from the run's seed, keep a resumed run identical to
an uninterrupted one: torch's generator initialises the model, one NumPy generator draws
the training batches (its state is checkpointed), and every evaluation draws its data
from a generator seeded by (seed, step), so evaluating never disturbs training.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from memrnn.experiments.base import (
    Experiment,
    FittedExperiment,
    RunContext,
    RunOutput,
    TrainedExperiment,
)
from memrnn.experiments.config import TrainConfig
from memrnn.runner.checkpoint import load_checkpoint, save_checkpoint

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


class _EarlyStopping:
    def __init__(self, config: TrainConfig, best: float | None = None, bad: int = 0) -> None:
        self.sign = 1.0 if config.monitor_mode == "max" else -1.0
        self.patience = config.patience
        self.best = best
        self.bad = bad

    def should_stop(self, value: float) -> bool:
        if self.best is None or self.sign * (value - self.best) > 0:
            self.best, self.bad = value, 0
        else:
            self.bad += 1
        return self.exhausted()

    def exhausted(self) -> bool:
        return self.patience > 0 and self.bad >= self.patience


def run_context(config: TrainConfig, data: Path | None) -> RunContext:
    """The context of a run of ``config``: its device resolved, its data folder."""
    return RunContext(resolve_device(config.device), data)


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
    _check_config(experiment, config)
    started = time.perf_counter()
    context = run_context(config, data)
    torch.manual_seed(config.seed)
    run = experiment.build(config, context)
    optimizer = make_optimizer(config, run.model.parameters())
    data_rng = np.random.default_rng([config.seed, _DATA])
    step, history, pending, wall_before = 0, [], [], 0.0
    stopping = _EarlyStopping(config)
    if resume and checkpoint is not None and checkpoint.exists():
        state = load_checkpoint(checkpoint)
        run.model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        data_rng.bit_generator.state = state["data_rng"]
        torch.set_rng_state(state["torch_rng"])
        step, pending, wall_before = state["step"], state["pending"], state["wall_seconds"]
        history = [tuple(h) for h in state["history"]]
        stopping = _EarlyStopping(config, state["best"], state["bad_evals"])

    def save() -> None:
        if checkpoint is None:
            return
        save_checkpoint(
            checkpoint,
            {
                "model": run.model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "data_rng": data_rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(),
                "step": step,
                "pending": pending,
                "history": [list(h) for h in history],
                "best": stopping.best,
                "bad_evals": stopping.bad,
                "wall_seconds": wall_before + time.perf_counter() - started,
            },
        )

    metrics: dict[str, float] = {}
    evaluated_at = -1
    stopped_early = stopping.exhausted()
    session_start, session_step = time.perf_counter(), step
    while step < config.steps and not stopped_early:
        run.model.train()
        loss = run.loss(run.training_batch(data_rng))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if config.clip > 0:
            nn.utils.clip_grad_norm_(run.model.parameters(), config.clip)
        optimizer.step()
        step += 1
        last_loss = float(loss.detach())
        if not math.isfinite(last_loss):
            raise FloatingPointError(f"training loss became {last_loss} at step {step}")
        pending.append(last_loss)
        due = config.eval_every > 0 and step % config.eval_every == 0
        if due or step == config.steps:
            metrics = _evaluate(run, config, step, pending, history)
            pending, evaluated_at = [], step
            stopped_early = stopping.should_stop(metrics[config.monitor])
        if on_progress is not None:
            rate = (step - session_step) * config.batch_size / (time.perf_counter() - session_start)
            shown = metrics if evaluated_at == step else None
            on_progress(Progress(step, config.steps, last_loss, rate, shown))
        if config.checkpoint_every > 0 and step % config.checkpoint_every == 0:
            save()
    if evaluated_at != step:  # resumed from the checkpoint written at the very end
        metrics = {name: value for s, name, value in history if s == step}
        if not metrics:
            metrics = _evaluate(run, config, step, pending, history)
            pending = []
    save()
    run.model.eval()
    with torch.no_grad():
        artifacts = run.artifacts(np.random.default_rng([config.seed, _ARTIFACTS]))
    final = {**metrics, "steps": float(step), "stopped_early": float(stopped_early)}
    wall = wall_before + time.perf_counter() - started
    return RunOutput(final, history, artifacts, step, wall)


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
    (``checkpoint``, ``resume`` and ``on_progress`` do not apply), a
    ``TrainedExperiment``'s is trained by ``train``."""
    if isinstance(experiment, FittedExperiment):
        _check_config(experiment, config)
        return experiment.fit_run(config, run_context(config, data))
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


def _check_config(experiment: Experiment[Any], config: TrainConfig) -> None:
    """Raise TypeError unless ``config`` is the experiment's kind of config, and
    ValueError naming a field with a bad value."""
    if not isinstance(config, experiment.config_type):
        raise TypeError(
            f"config: {experiment.name} needs a {experiment.config_type.__name__}, "
            f"got {type(config).__name__}"
        )
    config.validate()


def _evaluate(
    run: Any, config: TrainConfig, step: int, pending: list[float], history: list[Any]
) -> dict[str, float]:
    run.model.eval()
    with torch.no_grad():
        metrics = dict(run.evaluate(np.random.default_rng([config.seed, _EVAL, step])))
    if pending:
        metrics["train_loss"] = float(np.mean(pending))
    if config.monitor not in metrics:
        known = ", ".join(sorted(metrics))
        raise ValueError(f"monitor: the run reports no metric {config.monitor!r}; it has {known}")
    history.extend((step, name, float(value)) for name, value in sorted(metrics.items()))
    return metrics
