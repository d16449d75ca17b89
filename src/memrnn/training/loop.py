"""The one gradient-descent loop of memrnn: seeded, checkpointed, resumable.

Every model trained by gradient descent goes through :func:`train_loop`: the runs of the
experiments (a step budget, evaluated every so many steps), the Dyck language models of
Hewitt et al. (2020) (epochs, evaluated on the dev set after each, the learning rate
halved on a plateau, the best weights kept) and the deep baselines of Paassen et al.
(2021) (one word per Adam step, no evaluation). What differs between them is data: a
:class:`LoopSettings` and the :class:`Steps` the loop drives.

A resumed run is identical to an uninterrupted one: a checkpoint holds the model, the
optimiser, the learning-rate schedule, the training data's random state, torch's random
state and the loop's own state, and every evaluation draws its data from a generator of
its own (``eval_rng(step)``), so evaluating never disturbs training. A damaged checkpoint
is moved aside with a warning and the run starts over (:mod:`memrnn.training.state`).
"""

from __future__ import annotations

import copy
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.training.state import History, LoopState, Schedule, restore_state, save_state


class Steps(Protocol):
    """What the loop trains: a model, its batches and its loss, and how to score it."""

    @property
    def model(self) -> nn.Module:
        """The network being trained, on its device."""

    def training_batch(self, rng: np.random.Generator) -> Any:
        """The next training batch, drawn from ``rng`` (the only source of randomness)."""

    def loss(self, batch: Any) -> Tensor:
        """The scalar training loss of ``self.model`` on ``batch``."""

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        """Metrics of the model after ``step`` optimiser steps; must include the
        settings' ``monitor``."""


@dataclass(frozen=True)
class LoopSettings:
    """How long to train, when to evaluate and checkpoint, and when to stop.

    Attributes:
        steps: optimiser steps at most.
        clip: clip the gradient's global norm to this (0: no clipping).
        eval_every: evaluate every this many steps (0: only after the last step). The
            loop always evaluates after its last step, so a run ends with metrics.
        checkpoint_every: write a checkpoint every this many steps (0: only at the end).
        patience: stop after this many evaluations in a row without an improvement
            (0: never stop early).
        monitor: the metric that early stopping, ``keep_best`` and the schedule read.
        monitor_mode: "min" if smaller is better, "max" if larger is.
        margin: an evaluation improves on the best only by more than this.
        keep_best: end with the weights of the best evaluation instead of the last.
    """

    steps: int
    clip: float = 0.0
    eval_every: int = 0
    checkpoint_every: int = 0
    patience: int = 0
    monitor: str = "loss"
    monitor_mode: Literal["min", "max"] = "min"
    margin: float = 0.0
    keep_best: bool = False


@dataclass(frozen=True)
class StepReport:
    """Where a run is, after each optimiser step; ``metrics`` when it evaluated."""

    step: int
    steps: int
    loss: float
    steps_per_second: float
    metrics: dict[str, float] | None = None


@dataclass
class LoopResult:
    """What a finished loop hands back."""

    metrics: dict[str, float]
    history: History
    steps_done: int
    stopped_early: bool
    best_step: int
    wall_seconds: float


def train_loop(
    steps: Steps,
    optimizer: torch.optim.Optimizer,
    settings: LoopSettings,
    *,
    data_rng: np.random.Generator,
    eval_rng: Callable[[int], np.random.Generator],
    schedule: Schedule | None = None,
    checkpoint: Path | None = None,
    resume: bool = False,
    on_step: Callable[[StepReport], None] | None = None,
) -> LoopResult:
    """Train ``steps.model`` with ``optimizer`` as ``settings`` say; return its metrics.

    With ``checkpoint``, state is written there every ``settings.checkpoint_every`` steps
    and at the end; with ``resume`` too, training continues from that file if it exists.
    One that cannot be used (unreadable, or not a state of this model and optimiser) is
    renamed ``NAME.damaged`` with a :class:`~memrnn.training.checkpoint.DamagedCheckpointWarning`,
    and training starts from step 0, as if there had been none.
    ``on_step`` is called after every optimiser step (and may raise to stop the run).
    """
    started = time.perf_counter()
    model = steps.model
    state = LoopState(best_weights=_copy(model) if settings.keep_best else None)
    if resume and checkpoint is not None and os.path.lexists(checkpoint):
        state = restore_state(checkpoint, model, optimizer, schedule, data_rng) or state

    def save() -> None:
        if checkpoint is not None:
            wall = state.wall_before + time.perf_counter() - started
            save_state(checkpoint, state, wall, model, optimizer, schedule, data_rng)

    metrics = _last_metrics(state.history, state.step)
    stopped = _exhausted(settings, state)
    session_start, session_step = time.perf_counter(), state.step
    while state.step < settings.steps and not stopped:
        model.train()
        loss = steps.loss(steps.training_batch(data_rng))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if settings.clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
        optimizer.step()
        state.step += 1
        value = float(loss.detach())
        if not math.isfinite(value):
            raise FloatingPointError(f"training loss became {value} at step {state.step}")
        state.pending.append(value)
        due = settings.eval_every > 0 and state.step % settings.eval_every == 0
        evaluated = due or state.step == settings.steps
        if evaluated:
            metrics = _evaluate(steps, settings, state, eval_rng(state.step))
            stopped = _judge(settings, state, model, metrics[settings.monitor], schedule)
        if on_step is not None:
            rate = (state.step - session_step) / (time.perf_counter() - session_start)
            on_step(
                StepReport(state.step, settings.steps, value, rate, metrics if evaluated else None)
            )
        if settings.checkpoint_every > 0 and state.step % settings.checkpoint_every == 0:
            save()
    if not metrics:  # nothing evaluated yet: a run of zero steps left, or resumed before it
        metrics = _evaluate(steps, settings, state, eval_rng(state.step))
    save()
    if settings.keep_best and state.best_weights is not None:
        model.load_state_dict(state.best_weights)
    model.eval()
    wall = state.wall_before + time.perf_counter() - started
    return LoopResult(metrics, state.history, state.step, stopped, state.best_step, wall)


def _evaluate(
    steps: Steps, settings: LoopSettings, state: LoopState, rng: np.random.Generator
) -> dict[str, float]:
    steps.model.eval()
    with torch.no_grad():
        metrics = dict(steps.evaluate(rng, state.step))
    if state.pending:
        metrics["train_loss"] = float(np.mean(state.pending))
    state.pending = []
    if settings.monitor not in metrics:
        known = ", ".join(sorted(metrics))
        raise ValueError(f"monitor: the run reports no metric {settings.monitor!r}; it has {known}")
    state.history.extend((state.step, name, float(v)) for name, v in sorted(metrics.items()))
    return metrics


def _judge(
    settings: LoopSettings,
    state: LoopState,
    model: nn.Module,
    value: float,
    schedule: Schedule | None,
) -> bool:
    """Record an evaluation: best so far, patience, schedule. Whether to stop."""
    if schedule is not None:
        schedule.step(value)
    sign = 1.0 if settings.monitor_mode == "max" else -1.0
    if state.best is None or sign * (value - state.best) > settings.margin:
        state.best, state.best_step, state.bad = value, state.step, 0
        if settings.keep_best:
            state.best_weights = _copy(model)
    else:
        state.bad += 1
    return _exhausted(settings, state)


def _exhausted(settings: LoopSettings, state: LoopState) -> bool:
    return settings.patience > 0 and state.bad >= settings.patience


def _last_metrics(history: History, step: int) -> dict[str, float]:
    return {name: value for s, name, value in history if s == step}


def _copy(model: nn.Module) -> dict[str, Tensor]:
    return copy.deepcopy(model.state_dict())
