"""Many runs as one: K runs of one architecture trained together by the one loop.

Most runs memrnn makes are small models at small batches on a CPU, where a training step
waits on Python and kernel launches rather than on arithmetic. Runs that differ only in
seed or learning rate can share their steps: a :class:`~memrnn.models.grouped.Grouped`
runs the K members' forward as one, one backward serves all K, and each member's own
optimiser steps its own parameters. :func:`train_group` is
:func:`~memrnn.training.loop.train_loop`'s loop over K members: each keeps its own
training data stream, loss history, evaluations, early stopping, best weights,
checkpoint and result."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import Tensor

from memrnn.models.grouped import Grouped
from memrnn.training.group_checks import check_batches_from, check_group_arguments
from memrnn.training.loop import (
    Loop,
    LoopResult,
    LoopSettings,
    Member,
    StepReport,
    Steps,
    alone_losses,
)


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
    group: Grouped,
    settings: LoopSettings,
    *,
    optimizers: Sequence[torch.optim.Optimizer],
    data_rngs: Sequence[np.random.Generator],
    eval_rngs: Sequence[Callable[[int], np.random.Generator]],
    checkpoints: Sequence[Path | None] | None = None,
    resume: bool = False,
    on_step: Callable[[int, StepReport], None] | None = None,
    batches_from: Sequence[int] | None = None,
) -> list[LoopResult]:
    """Train the K runs ``members`` together through ``group``; return their results.

    Member ``k`` is trained as ``train_loop(members[k], optimizers[k], settings,
    data_rng=data_rngs[k], eval_rng=eval_rngs[k], checkpoint=checkpoints[k],
    resume=resume)`` would train it alone, to float rounding (``optimizers[k]`` over
    ``members[k].model``'s parameters): its batches come from its own generator, it is
    evaluated on its own module every ``settings.eval_every`` steps and after the last,
    its gradient is clipped and its optimiser stepped on its own, and it stops early,
    keeps its best weights and writes its checkpoint in the single-run format of
    :mod:`memrnn.training.state` (``train_loop`` on the member alone resumes it). A
    member that stops is left out of the later steps while the others go on. Each step,
    the inputs of the members still training are padded with zeros along time to the
    longest and stacked; member ``k``'s loss reads its outputs up to its own length,
    which padding after it cannot change since the models are causal. ``wall_seconds``
    of each member is the group's wall time. ``on_step(k, report)`` is called after
    every step of every member still training (and may raise to stop).

    ``batches_from[k] = j`` (j <= k) says that member ``k`` draws its batches as member
    ``j`` does (the same task, batch size and lengths; runs differing only in learning
    rate): at a step where both train and their generators are in the same state, ``k``
    takes ``j``'s batch, drawn once, and its generator is moved to where ``j``'s is after
    the draw, so that its batches, checkpoint and resumption are what drawing its own
    would give. By default every member draws its own.

    With ``resume``, each member restores its own checkpoint. If the members still
    training restore to different steps, they cannot share steps: each is then trained
    on its own, one after another (correct, only slower).

    Raises:
        ValueError: ``optimizers``, ``data_rngs``, ``eval_rngs``, ``checkpoints`` or
            ``batches_from`` not one per member, a ``batches_from`` entry naming a later
            member, a member's model not ``group.members[k]``, members sharing a generator,
            optimiser or checkpoint, or members' batches of different sizes.
        FloatingPointError: a member's training loss is not finite (naming the member).
    """
    started = time.perf_counter()
    count = check_group_arguments(members, group, optimizers, data_rngs, eval_rngs, checkpoints)
    sources = check_batches_from(batches_from, count)
    paths: list[Path | None] = list(checkpoints) if checkpoints is not None else [None] * count
    loop_members = [
        Member(steps, optimizers[k], data_rngs[k], eval_rngs[k], paths[k], sources[k])
        for k, steps in enumerate(members)
    ]
    for member in loop_members:
        member.start(settings, resume, None)
    training = {m.state.step for m in loop_members if m.training(settings)}
    if len(training) > 1:
        results = []
        for k, member in enumerate(loop_members):
            report = None if on_step is None else partial(_as_member, on_step, k)
            results += Loop([member], settings, alone_losses, None, started).run(report)
        return results
    losses = partial(_group_losses, group)
    return Loop(loop_members, settings, losses, None, started).run(on_step)


def _as_member(on_step: Callable[[int, StepReport], None], k: int, _: int, r: StepReport) -> None:
    on_step(k, r)


def _group_losses(group: Grouped, members: Sequence[Member], batches: dict[int, Any]) -> Tensor:
    """The losses of ``members[k]`` on ``batches[k]`` (those still training), from one
    forward of ``group`` over their stacked inputs."""
    steps: dict[int, Any] = {k: members[k].steps for k in batches}
    inputs = [steps[k].inputs(batch) for k, batch in batches.items()]
    stacked, lengths = _stack_inputs(list(batches), inputs)
    outputs = group(stacked, list(batches)).unbind(0)  # one unbind, whose backward stacks
    return torch.stack(
        [
            steps[k].loss_of(out[:, :length], batch)
            for (k, batch), out, length in zip(batches.items(), outputs, lengths, strict=True)
        ]
    )


def _stack_inputs(which: list[int], inputs: list[Tensor]) -> tuple[Tensor, list[int]]:
    """``(K', B, T_max, ...)``: each member's inputs padded with zeros after its own
    length; and each one's length."""
    first = inputs[0]
    for k, x in zip(which, inputs, strict=True):
        if x.ndim < 2 or x.shape[0] != first.shape[0]:
            sizes = {j: tuple(y.shape[:1]) for j, y in zip(which, inputs, strict=True)}
            raise ValueError(f"members: their batches must be of one size (dim 0), got {sizes}")
        if x.shape[2:] != first.shape[2:] or x.dtype != first.dtype or x.device != first.device:
            raise ValueError(
                f"members: member {k}'s inputs are {tuple(x.shape)} {x.dtype} on {x.device}, "
                f"another's {tuple(first.shape)} {first.dtype} on {first.device}"
            )
    lengths = [x.shape[1] for x in inputs]
    longest = max(lengths)
    if all(t == longest for t in lengths):
        return torch.stack(inputs), lengths
    stacked = first.new_zeros((len(inputs), first.shape[0], longest, *first.shape[2:]))
    for j, x in enumerate(inputs):
        stacked[j, :, : x.shape[1]] = x
    return stacked, lengths
