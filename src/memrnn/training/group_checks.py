"""The arguments of :func:`~memrnn.training.train_group`, checked before anything runs:
one of each per member, distinct generators, optimisers and checkpoints, and each
optimiser over its member's parameters."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from memrnn.validation import check_generator

if TYPE_CHECKING:
    from memrnn.models.grouped import Grouped
    from memrnn.training.group import GroupSteps


def check_group_arguments(
    members: Sequence[GroupSteps],
    group: Grouped,
    optimizers: Sequence[torch.optim.Optimizer],
    data_rngs: Sequence[np.random.Generator],
    eval_rngs: Sequence[Callable[[int], np.random.Generator]],
    checkpoints: Sequence[Path | None] | None,
) -> int:
    """The number of members; ValueError naming the first argument that does not fit."""
    count = len(members)
    if count == 0:
        raise ValueError("members: expected at least one run, got none")
    per_member: dict[str, Sequence[object]] = {
        "optimizers": optimizers,
        "data_rngs": data_rngs,
        "eval_rngs": eval_rngs,
        "group.members": group.members,
    }
    if checkpoints is not None:
        per_member["checkpoints"] = checkpoints
    for name, values in per_member.items():
        if len(values) != count:
            raise ValueError(f"{name}: expected {count}, one per member, got {len(values)}")
    for k, (steps, module) in enumerate(zip(members, group.members, strict=True)):
        if [id(p) for p in steps.model.parameters()] != [id(p) for p in module.parameters()]:
            # a model may wrap its member (buffers of its own), not add parameters
            raise ValueError(f"members: member {k}'s model has not group.members[{k}]'s parameters")
    for k, rng in enumerate(data_rngs):
        check_generator(f"data_rngs[{k}]", rng)
        if not callable(eval_rngs[k]):
            raise ValueError(
                f"eval_rngs[{k}]: expected a function of the step, got {eval_rngs[k]!r}"
            )
    _check_distinct("data_rngs", [id(r) for r in data_rngs])
    if checkpoints is not None:
        _check_distinct(
            "checkpoints", [os.path.abspath(p) if p is not None else None for p in checkpoints]
        )
    _check_distinct("optimizers", [id(o) for o in optimizers])
    for k, (steps, optimizer) in enumerate(zip(members, optimizers, strict=True)):
        own = {id(p) for p in steps.model.parameters()}
        if not all(id(p) in own for g in optimizer.param_groups for p in g["params"]):
            raise ValueError(f"optimizers[{k}]: it steps parameters that are not member {k}'s")
    return count


def check_batches_from(batches_from: Sequence[int] | None, count: int) -> list[int]:
    """``train_group``'s ``batches_from`` as a list (None: each member its own);
    ValueError where it is not one member index <= k per member k."""
    if batches_from is None:
        return list(range(count))
    if len(batches_from) != count:
        raise ValueError(f"batches_from: expected {count}, one per member, got {len(batches_from)}")
    sources = []
    for k, source in enumerate(batches_from):
        if isinstance(source, bool) or not isinstance(source, int) or not 0 <= source <= k:
            raise ValueError(
                f"batches_from[{k}]: expected the index of member {k} or of one before it "
                f"(0 .. {k}), got {source!r}"
            )
        sources.append(source)
    return sources


def _check_distinct(name: str, values: list[Any]) -> None:
    seen: dict[Any, int] = {}
    for k, value in enumerate(values):
        if value is not None and value in seen:
            raise ValueError(f"{name}: members {seen[value]} and {k} share one")
        seen.setdefault(value, k)
