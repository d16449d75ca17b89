"""Many runs as one: K runs of one architecture trained together by one loop.

Most runs memrnn makes are small models at small batches on a CPU, where a training step
waits on Python and kernel launches rather than on arithmetic. Runs that differ only in
seed or learning rate can share their steps: a :class:`GroupModel` holds the K members'
parameters stacked, one forward and one backward serve all K, and a stacked optimiser
(:class:`~memrnn.training.StackedAdam`, :class:`~memrnn.training.StackedRMSprop`) moves
each member as its own optimiser would.
:func:`train_group` keeps, for every member, exactly what
:func:`~memrnn.training.loop.train_loop` keeps for a run alone: its own training data
stream, loss history, evaluations, early stopping, best weights, checkpoint and result."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.training.group_checks import check_batches_from, check_group_arguments
from memrnn.training.loop import (
    LoopResult,
    LoopSettings,
    StepReport,
    Steps,
    _copy,
    _evaluate,
    _exhausted,
    _judge,
    _last_metrics,
    train_loop,
)
from memrnn.training.stacked import (
    GROUPED,
    GroupedOptimizer,
    Stacked,
    member_optimizer,
    stacked_optimizer,
)
from memrnn.training.stacked_adam import clip_grad_norm_per_member_
from memrnn.training.state import LoopState, Schedule, restore_state, save_state
from memrnn.validation import check_choice, check_float


class GroupModel(Protocol):
    """K models of one architecture as one module: each parameter stacked ``(K, *shape)``.

    ``members`` are the K member modules, kept outside the module (not its submodules);
    ``parameters()`` are the stacked parameters, the i-th being, slice by slice,
    ``list(members[k].parameters())[i]``. Called on the members' inputs ``(K, B, T, ...)``
    it gives their outputs ``(K, B, T, O)``, causally (an output at time t reads no input
    after t). ``write_back()`` copies the stacked values into each member's parameters,
    ``read_members()`` the other way.
    """

    @property
    def members(self) -> tuple[nn.Module, ...]: ...

    def parameters(self) -> Iterator[nn.Parameter]: ...

    def __call__(self, inputs: Tensor) -> Tensor: ...

    def train(self, mode: bool = True) -> object: ...

    def eval(self) -> object: ...

    def write_back(self) -> None: ...

    def read_members(self) -> None: ...


class GroupSteps(Steps, Protocol):
    """A member's :class:`~memrnn.training.loop.Steps`, with its loss split in two: what
    the model reads, and the loss given what the model wrote. ``loss(batch)`` must equal
    ``loss_of(model(inputs(batch)), batch)``."""

    def inputs(self, batch: Any) -> Tensor:
        """What the model reads of ``batch``: ``(B, T, ...)``."""

    def loss_of(self, outputs: Tensor, batch: Any) -> Tensor:
        """The scalar loss of ``batch`` given the model's ``outputs`` on its inputs."""


def train_group(
    members: Sequence[GroupSteps],
    group: GroupModel,
    settings: LoopSettings,
    *,
    lrs: Sequence[float],
    weight_decay: float,
    data_rngs: Sequence[np.random.Generator],
    eval_rngs: Sequence[Callable[[int], np.random.Generator]],
    checkpoints: Sequence[Path | None] | None = None,
    resume: bool = False,
    on_step: Callable[[int, StepReport], None] | None = None,
    schedule: Schedule | None = None,
    optimizer: GroupedOptimizer = "adam",
    batches_from: Sequence[int] | None = None,
) -> list[LoopResult]:
    """Train the K runs ``members`` together through ``group``; return their results.

    Member ``k`` is trained as ``train_loop(members[k], torch.optim.Adam(params, lr=lrs[k],
    weight_decay=weight_decay), settings, data_rng=data_rngs[k], eval_rng=eval_rngs[k],
    checkpoint=checkpoints[k], resume=resume)`` would train it alone (``AdamW`` or
    ``RMSprop`` for the ``optimizer`` "adamw" or "rmsprop"; see
    :mod:`memrnn.training.stacked`), to float rounding:
    its batches come from its own generator, it is evaluated on its own module (the
    group's values written back first) every ``settings.eval_every`` steps and after the
    last, and it stops early, keeps its best weights and writes its checkpoint in the
    single-run format of :mod:`memrnn.training.state` (``train_loop`` on the member alone
    resumes it). A member that stops early is frozen (parameters and optimiser state) while
    the others go on. Each step, the members' inputs are padded with zeros along time to
    the longest and stacked; member ``k``'s loss reads ``outputs[k, :, :T_k]``, which
    padding after ``T_k`` cannot change since the models are causal; a stopped member
    reads zeros and its loss is left out. The members' modules and ``group`` end holding
    the final weights (the best ones with ``settings.keep_best``). The optimiser skips a stacked
    parameter that no member's loss reaches, as it skips a run's; one that only some
    reach is stepped with zeros in the others' slices, where a run alone would skip it
    (a difference only for models that leave a parameter unused on some batches).
    ``wall_seconds`` of each member is the group's wall time. ``on_step(k, report)`` is
    called after every step of every member still training (and may raise to stop).

    ``batches_from[k] = j`` (j <= k) says that member ``k`` draws its batches as member
    ``j`` does (the same task, batch size and lengths; runs differing only in learning
    rate): at a step where both train and their generators are in the same state, ``k``
    takes ``j``'s batch, drawn once, and its generator is moved to where ``j``'s is after
    the draw, so that its batches, checkpoint and resumption are what drawing its own
    would give. By default every member draws its own.

    With ``resume``, each member restores its own checkpoint. If the members still
    training restore to different steps, they cannot share steps: each is then trained
    on its own, one after another, by ``train_loop`` (correct, only slower).

    Raises:
        ValueError: ``lrs``, ``data_rngs``, ``eval_rngs``, ``checkpoints`` or
            ``batches_from`` not one per member, a ``batches_from`` entry naming a later
            member, a member's model not ``group.members[k]``, members sharing a generator
            or checkpoint, stacked parameters that do not fit the members', a ``schedule``
            (a group trains without one), an ``optimizer`` that does not stack, or
            members' batches of different sizes.
        FloatingPointError: a member's training loss is not finite (naming the member).
    """
    started = time.perf_counter()
    count = check_group_arguments(members, group, lrs, data_rngs, eval_rngs, checkpoints, schedule)
    sources = check_batches_from(batches_from, count)
    paths: list[Path | None] = list(checkpoints) if checkpoints is not None else [None] * count
    rates = [check_float(f"lrs[{k}]", lr, 0.0) for k, lr in enumerate(lrs)]
    decay = check_float("weight_decay", weight_decay, 0.0)
    name = check_choice("optimizer", optimizer, GROUPED)
    # each member's own optimiser: what its checkpoint holds, and what resumes it alone
    alone = [
        member_optimizer(name, m.model.parameters(), lr, decay)
        for m, lr in zip(members, rates, strict=True)
    ]
    stacked = stacked_optimizer(name, group.parameters(), rates, decay)
    states = [
        LoopState(best_weights=_copy(m.model) if settings.keep_best else None) for m in members
    ]
    for k, path in enumerate(paths):
        if resume and path is not None and os.path.lexists(path):
            states[k] = (
                restore_state(path, members[k].model, alone[k], None, data_rngs[k]) or states[k]
            )
            stacked.import_member(k, alone[k])
    group.read_members()
    training = [
        k for k, s in enumerate(states) if s.step < settings.steps and not _exhausted(settings, s)
    ]
    if len({states[k].step for k in training}) > 1:
        results = [
            train_loop(
                m,
                own,
                settings,
                data_rng=data_rngs[k],
                eval_rng=eval_rngs[k],
                checkpoint=paths[k],
                resume=True,
                on_step=None if on_step is None else partial(on_step, k),
            )
            for k, (m, own) in enumerate(zip(members, alone, strict=True))
        ]
        group.read_members()
        group.eval()
        return results
    run = _GroupRun(
        members, group, settings, stacked, alone, states, data_rngs, eval_rngs, paths, started,
        sources,
    )  # fmt: skip
    for k in set(range(count)) - set(training):
        stacked.freeze(k)
    run.train(training, on_step)
    return run.finish(training)


@dataclass
class _GroupRun:
    """The loop's state over all members: train_loop's body, a step for every member."""

    members: Sequence[GroupSteps]
    group: GroupModel
    settings: LoopSettings
    optimizer: Stacked
    alone: list[torch.optim.Optimizer]
    states: list[LoopState]
    data_rngs: Sequence[np.random.Generator]
    eval_rngs: Sequence[Callable[[int], np.random.Generator]]
    paths: list[Path | None]
    started: float
    batches_from: list[int]
    written_back: bool = True  # whether the members' modules hold the group's values

    def __post_init__(self) -> None:
        self.metrics = [_last_metrics(s.history, s.step) for s in self.states]

    def train(self, training: list[int], on_step: Callable[[int, StepReport], None] | None) -> None:
        """Step the members ``training`` (all at one step) until each stops or ends."""
        settings, states = self.settings, self.states
        active = list(training)
        step = states[active[0]].step if active else settings.steps
        session_start, session_step = time.perf_counter(), step
        self._train_mode(active)
        while active:
            batches = self._draw(active)
            losses = self._losses(batches)
            self.optimizer.zero_grad()
            losses.sum().backward()
            if settings.clip > 0:
                clip_grad_norm_per_member_(self.optimizer.params, settings.clip)
            self.optimizer.step()
            self.written_back = False
            step += 1
            values = losses.detach().tolist()
            for k, value in zip(active, values, strict=True):
                states[k].step = step
                if not math.isfinite(value):
                    raise FloatingPointError(
                        f"member {k}: training loss became {value} at step {step}"
                    )
                states[k].pending.append(value)
            due = settings.eval_every > 0 and step % settings.eval_every == 0
            evaluated = due or step == settings.steps
            ended = set(active) if step == settings.steps else set()
            if evaluated:
                ended |= self._evaluate(active, step)
                self._train_mode([k for k in active if k not in ended])
            if on_step is not None:
                rate = (step - session_step) / (time.perf_counter() - session_start)
                for k, value in zip(active, values, strict=True):
                    report = self.metrics[k] if evaluated else None
                    on_step(k, StepReport(step, settings.steps, value, rate, report))
            regular = settings.checkpoint_every > 0 and step % settings.checkpoint_every == 0
            for k in active:
                if regular or k in ended:
                    self._save(k)
            active = [k for k in active if k not in ended]

    def finish(self, training: list[int]) -> list[LoopResult]:
        """End every member as train_loop ends a run: metrics, last checkpoint, weights."""
        self._write_back()
        elapsed = time.perf_counter() - self.started
        results = []
        for k, (steps, state) in enumerate(zip(self.members, self.states, strict=True)):
            if not self.metrics[k]:  # nothing evaluated yet: no step was left to take
                self.metrics[k] = _evaluate(
                    steps, self.settings, state, self.eval_rngs[k](state.step)
                )
            if k not in training:  # the members that trained wrote theirs as they ended
                self._save(k)
            if self.settings.keep_best and state.best_weights is not None:
                steps.model.load_state_dict(state.best_weights)
            steps.model.eval()
            stopped = _exhausted(self.settings, state)
            wall = state.wall_before + elapsed
            results.append(
                LoopResult(
                    self.metrics[k], state.history, state.step, stopped, state.best_step, wall
                )
            )
        self.group.read_members()
        self.group.eval()
        return results

    def _draw(self, active: list[int]) -> dict[int, Any]:
        """A training batch for each member ``active``: drawn from its own generator, or,
        where ``batches_from`` names a member whose generator was in the same state, that
        member's batch, its own generator moved on as the draw would have moved it."""
        batches: dict[int, Any] = {}
        before: dict[int, Mapping[str, Any]] = {}
        for k in active:
            rng, source = self.data_rngs[k], self.batches_from[k]
            before[k] = rng.bit_generator.state
            if source != k and source in batches and before[source] == before[k]:
                batches[k] = batches[source]
                rng.bit_generator.state = self.data_rngs[source].bit_generator.state
            else:
                batches[k] = self.members[k].training_batch(rng)
        return batches

    def _losses(self, batches: dict[int, Any]) -> Tensor:
        """The members' losses on ``batches`` (one per member still training), stacked."""
        inputs = {k: self.members[k].inputs(batch) for k, batch in batches.items()}
        stacked, lengths = _stack_inputs(inputs, len(self.members))
        # one unbind, whose backward stacks: indexing a member out zero-fills the group
        outputs = self.group(stacked).unbind(0)
        return torch.stack(
            [
                self.members[k].loss_of(outputs[k][:, : lengths[k]], batch)
                for k, batch in batches.items()
            ]
        )

    def _evaluate(self, active: list[int], step: int) -> set[int]:
        """Evaluate the members ``active`` on their own modules; those that stop."""
        self._write_back()
        stopped = set()
        for k in active:
            steps, state = self.members[k], self.states[k]
            self.metrics[k] = _evaluate(steps, self.settings, state, self.eval_rngs[k](step))
            value = self.metrics[k][self.settings.monitor]
            if _judge(self.settings, state, steps.model, value, None):
                self.optimizer.freeze(k)
                stopped.add(k)
        return stopped

    def _save(self, k: int) -> None:
        path = self.paths[k]
        if path is None:
            return
        self._write_back()
        self.optimizer.export_member(k, self.alone[k])
        state = self.states[k]
        wall = state.wall_before + time.perf_counter() - self.started
        save_state(path, state, wall, self.members[k].model, self.alone[k], None, self.data_rngs[k])

    def _write_back(self) -> None:
        if not self.written_back:
            self.group.write_back()
            self.written_back = True

    def _train_mode(self, active: list[int]) -> None:
        self.group.train()
        for k in active:
            self.members[k].model.train()


def _stack_inputs(inputs: dict[int, Tensor], count: int) -> tuple[Tensor, dict[int, int]]:
    """``(count, B, T_max, ...)``: each member's inputs padded with zeros after its own
    length, zeros for a member without inputs; and each member's length."""
    first = next(iter(inputs.values()))
    for k, x in inputs.items():
        if x.ndim < 2 or x.shape[0] != first.shape[0]:
            sizes = {j: tuple(y.shape[:1]) for j, y in inputs.items()}
            raise ValueError(f"members: their batches must be of one size (dim 0), got {sizes}")
        if x.shape[2:] != first.shape[2:] or x.dtype != first.dtype or x.device != first.device:
            raise ValueError(
                f"members: member {k}'s inputs are {tuple(x.shape)} {x.dtype} on {x.device}, "
                f"another's {tuple(first.shape)} {first.dtype} on {first.device}"
            )
    lengths = {k: x.shape[1] for k, x in inputs.items()}
    longest = max(lengths.values())
    if len(inputs) == count and all(t == longest for t in lengths.values()):
        return torch.stack([inputs[k] for k in range(count)]), lengths
    stacked = first.new_zeros((count, first.shape[0], longest, *first.shape[2:]))
    for k, x in inputs.items():
        stacked[k, :, : x.shape[1]] = x
    return stacked, lengths
