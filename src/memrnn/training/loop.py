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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
    member = Member(steps, optimizer, data_rng, eval_rng, checkpoint)
    member.start(settings, resume, schedule)
    report = None if on_step is None else (lambda _k, r: on_step(r))
    (result,) = Loop([member], settings, alone_losses, schedule, started).run(report)
    return result


def alone_losses(members: Sequence[Member], batches: dict[int, Any]) -> Tensor:
    """The losses of ``members[k]`` on ``batches[k]``, each its own model's, stacked."""
    return torch.stack([members[k].steps.loss(batch) for k, batch in batches.items()])


@dataclass
class Member:
    """One run in the loop: what it trains, with what, from which data, and where it is."""

    steps: Steps
    optimizer: torch.optim.Optimizer
    data_rng: np.random.Generator
    eval_rng: Callable[[int], np.random.Generator]
    checkpoint: Path | None
    batches_from: int = -1  # the member whose batch it takes (-1: it draws its own)
    state: LoopState = field(default_factory=LoopState)
    metrics: dict[str, float] = field(default_factory=dict)
    saved_step: int = -1  # the step its checkpoint holds (-1: none written yet)

    def start(self, settings: LoopSettings, resume: bool, schedule: Schedule | None) -> None:
        """Its state at the start: restored from its checkpoint with ``resume``."""
        model = self.steps.model
        self.state = LoopState(best_weights=_copy(model) if settings.keep_best else None)
        path = self.checkpoint
        if resume and path is not None and os.path.lexists(path):
            self.state = (
                restore_state(path, model, self.optimizer, schedule, self.data_rng) or self.state
            )
        self.metrics = _last_metrics(self.state.history, self.state.step)

    def save(self, elapsed: float, schedule: Schedule | None) -> None:
        """Write its checkpoint, if it has one (``elapsed``: this session's seconds)."""
        if self.checkpoint is not None:
            wall = self.state.wall_before + elapsed
            save_state(self.checkpoint, self.state, wall, self.steps.model, self.optimizer,
                       schedule, self.data_rng)  # fmt: skip
            self.saved_step = self.state.step

    def training(self, settings: LoopSettings) -> bool:
        """Whether it has steps left to take: not at the end, and not stopped early."""
        return self.state.step < settings.steps and not _exhausted(settings, self.state)


Losses = Callable[[Sequence[Member], dict[int, Any]], Tensor]


@dataclass
class Loop:
    """The loop's body over K >= 1 members that are all at one step: each step draws a
    batch for every member still training, backpropagates the sum of their losses
    (``losses``: one forward for all, or each its own), clips and steps each member's
    optimiser on its own parameters, and evaluates, stops early and checkpoints each
    member on its own schedule."""

    members: Sequence[Member]
    settings: LoopSettings
    losses: Losses
    schedule: Schedule | None
    started: float

    def run(self, on_step: Callable[[int, StepReport], None] | None) -> list[LoopResult]:
        """Train until every member stops or ends; their results, in order."""
        settings = self.settings
        active = [k for k, m in enumerate(self.members) if m.training(settings)]
        step = self.members[active[0]].state.step if active else settings.steps
        session_start, session_step = time.perf_counter(), step
        while active:
            for k in active:
                self.members[k].steps.model.train()
            losses = self.losses(self.members, self._draw(active))
            for k in active:
                self.members[k].optimizer.zero_grad(set_to_none=True)
            losses.sum().backward()
            for k in active:
                member = self.members[k]
                if settings.clip > 0:
                    nn.utils.clip_grad_norm_(member.steps.model.parameters(), settings.clip)
                member.optimizer.step()
            step += 1
            values = losses.detach().tolist()
            for k, value in zip(active, values, strict=True):
                self.members[k].state.step = step
                if not math.isfinite(value):
                    where = "" if len(self.members) == 1 else f"member {k}: "
                    raise FloatingPointError(
                        f"{where}training loss became {value} at step {step}; a smaller "
                        "learning rate (lr) or gradient clipping (clip) usually helps"
                    )
                self.members[k].state.pending.append(value)
            due = settings.eval_every > 0 and step % settings.eval_every == 0
            evaluated = due or step == settings.steps
            ended = set(active) if step == settings.steps else set()
            if evaluated:
                ended |= {k for k in active if self._evaluate(k)}
            if on_step is not None:
                rate = (step - session_step) / (time.perf_counter() - session_start)
                for k, value in zip(active, values, strict=True):
                    report = self.members[k].metrics if evaluated else None
                    on_step(k, StepReport(step, settings.steps, value, rate, report))
            regular = settings.checkpoint_every > 0 and step % settings.checkpoint_every == 0
            for k in active:
                if regular or k in ended:  # an ended member's file at once: a crash of
                    self._save(k)  # the others' steps cannot lose its result
            active = [k for k in active if k not in ended]
        return [self._finish(member) for member in self.members]

    def _draw(self, active: list[int]) -> dict[int, Any]:
        """A training batch for each member ``active``: drawn from its own generator, or,
        where ``batches_from`` names a member whose generator was in the same state, that
        member's batch, its own generator moved on as the draw would have moved it."""
        batches: dict[int, Any] = {}
        before: dict[int, Mapping[str, Any]] = {}
        for k in active:
            member = self.members[k]
            source, rng = member.batches_from, member.data_rng
            before[k] = rng.bit_generator.state
            if source in batches and before[source] == before[k]:
                batches[k] = batches[source]
                rng.bit_generator.state = self.members[source].data_rng.bit_generator.state
            else:
                batches[k] = member.steps.training_batch(rng)
        return batches

    def _evaluate(self, k: int) -> bool:
        """Evaluate member ``k`` on its own model; whether it stops."""
        member = self.members[k]
        rng = member.eval_rng(member.state.step)
        member.metrics = _evaluate(member.steps, self.settings, member.state, rng)
        value = member.metrics[self.settings.monitor]
        return _judge(self.settings, member.state, member.steps.model, value, self.schedule)

    def _save(self, k: int) -> None:
        self.members[k].save(time.perf_counter() - self.started, self.schedule)

    def _finish(self, member: Member) -> LoopResult:
        """End a member: metrics (if none yet), last checkpoint, the weights to keep."""
        settings, state = self.settings, member.state
        if not member.metrics:  # nothing evaluated yet: no step was left to take
            member.metrics = _evaluate(member.steps, settings, state, member.eval_rng(state.step))
        if member.saved_step != state.step:
            member.save(time.perf_counter() - self.started, self.schedule)
        model = member.steps.model
        if settings.keep_best and state.best_weights is not None:
            model.load_state_dict(state.best_weights)
        model.eval()
        wall = state.wall_before + time.perf_counter() - self.started
        stopped = _exhausted(settings, state)
        return LoopResult(member.metrics, state.history, state.step, stopped, state.best_step, wall)


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
