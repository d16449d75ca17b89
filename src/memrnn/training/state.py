"""The training loop's state, and its checkpoint: written whole, restored all or nothing.

A checkpoint holds the model, the optimiser, the learning-rate schedule, the training
data's random state, torch's random state and the loop's own state (:class:`LoopState`).
Restoring first checks everything it will set, then sets it: a checkpoint that cannot be
read, lacks an entry, holds one of another type, or whose states do not fit the model,
optimiser, schedule or generators being trained, changes nothing. It is moved aside with a
warning (:func:`~memrnn.training.checkpoint.set_aside`) and the run starts over, which
gives what a run never interrupted gives. "Fit" is strict: the state dicts must hold the
very entries, of the same kinds, that the run's own hold, so a checkpoint written by a
torch whose optimiser or schedule records other entries also starts the run over, rather
than continue from a state the two versions may read differently.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.training.checkpoint import (
    DamagedCheckpointError,
    load_checkpoint,
    save_checkpoint,
    set_aside,
)
from memrnn.validation import is_int, is_number

History = list[tuple[int, str, float]]  # (step, metric, value) of each evaluation


class Schedule(Protocol):
    """A learning-rate schedule stepped with the monitored value after each evaluation
    (``torch.optim.lr_scheduler.ReduceLROnPlateau`` is one)."""

    def step(self, metrics: float) -> None: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state_dict: dict[str, Any]) -> None: ...


@dataclass
class LoopState:
    """The loop's own state: everything a checkpoint needs besides model and optimiser."""

    step: int = 0
    pending: list[float] = field(default_factory=list)  # losses since the last evaluation
    history: History = field(default_factory=list)
    best: float | None = None
    best_step: int = 0
    bad: int = 0
    best_weights: dict[str, Tensor] | None = None
    wall_before: float = 0.0


def save_state(
    path: Path,
    state: LoopState,
    wall: float,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    schedule: Schedule | None,
    data_rng: np.random.Generator,
) -> None:
    """Write the checkpoint of a run at ``state`` (``wall``: its seconds so far)."""
    save_checkpoint(
        path,
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "schedule": schedule.state_dict() if schedule is not None else None,
            "data_rng": data_rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "step": state.step,
            "pending": state.pending,
            "history": [list(h) for h in state.history],
            "best": state.best,
            "best_step": state.best_step,
            "bad_evals": state.bad,
            "best_weights": state.best_weights,
            "wall_seconds": wall,
        },
    )


def restore_state(
    path: Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    schedule: Schedule | None,
    data_rng: np.random.Generator,
) -> LoopState | None:
    """Set model, optimiser, schedule, ``data_rng`` and torch's generator from the
    checkpoint ``path`` and return the loop's state there; or, if the checkpoint is
    damaged, move it aside with a warning, change nothing and return None.

    Raises:
        UserError: a damaged checkpoint that cannot be moved aside.
    """
    try:
        saved = load_checkpoint(path)
        _check(path, saved, model, optimizer, schedule, data_rng)
    except DamagedCheckpointError as damaged:
        set_aside(damaged)
        return None
    model.load_state_dict(saved["model"])
    chosen = [{k: g[k] for k in IMPLEMENTATION if k in g} for g in optimizer.param_groups]
    optimizer.load_state_dict(saved["optimizer"])
    for group, implementation in zip(optimizer.param_groups, chosen, strict=True):
        group.update(implementation)  # the optimiser's own, not the file's
    if schedule is not None:
        schedule.load_state_dict(saved["schedule"])
    data_rng.bit_generator.state = saved["data_rng"]
    torch.set_rng_state(saved["torch_rng"])
    return LoopState(
        step=int(saved["step"]),
        pending=[float(v) for v in saved["pending"]],
        history=[(int(s), str(n), float(v)) for s, n, v in saved["history"]],
        best=None if saved["best"] is None else float(saved["best"]),
        best_step=int(saved["best_step"]),
        bad=int(saved["bad_evals"]),
        best_weights=saved["best_weights"],
        wall_before=float(saved["wall_seconds"]),
    )


def _is_count(v: object) -> bool:
    return is_int(v) and int(v) >= 0  # type: ignore[call-overload]


def _is_evaluation(v: object) -> bool:
    return (
        isinstance(v, (list, tuple))
        and len(v) == 3
        and _is_count(v[0])
        and isinstance(v[1], str)
        and is_number(v[2])
    )


def _is_state_dict(v: object) -> bool:
    return isinstance(v, dict)


# What save_state writes: each entry, what it must be, and a test of that
_ENTRIES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "model": ("a state dict", _is_state_dict),
    "optimizer": ("a state dict", _is_state_dict),
    "schedule": ("a state dict or None", lambda v: v is None or _is_state_dict(v)),
    "data_rng": ("a generator state", _is_state_dict),
    "torch_rng": ("a generator state", lambda v: isinstance(v, Tensor)),
    "step": ("a count", _is_count),
    "pending": ("a list of losses", lambda v: isinstance(v, list) and all(map(is_number, v))),
    "history": (
        "a list of evaluations",
        lambda v: isinstance(v, list) and all(map(_is_evaluation, v)),
    ),
    "best": ("a number or None", lambda v: v is None or is_number(v)),
    "best_step": ("a count", _is_count),
    "bad_evals": ("a count", _is_count),
    "best_weights": ("a state dict or None", lambda v: v is None or _is_state_dict(v)),
    "wall_seconds": ("a number", is_number),
}


def _check(
    path: Path,
    saved: dict[str, Any],
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    schedule: Schedule | None,
    data_rng: np.random.Generator,
) -> None:
    """DamagedCheckpointError unless restore_state can set everything from ``saved``."""
    for name, (what, fits) in _ENTRIES.items():
        if name not in saved:
            raise DamagedCheckpointError(path, f"it has no {name!r}")
        if not fits(saved[name]):
            raise DamagedCheckpointError(path, f"its {name!r} is not {what}")
    weights, best = model.state_dict(), saved["best_weights"]
    problem = (
        _tensors_problem("model", saved["model"], weights)
        or (_tensors_problem("best_weights", best, weights) if best is not None else "")
        or _optimizer_problem(saved["optimizer"], optimizer)
        or _schedule_problem(saved["schedule"], schedule)
        or _generator_problem(saved["data_rng"], saved["torch_rng"], data_rng)
    )
    if problem:
        raise DamagedCheckpointError(path, problem)


def _same_kind(a: object, b: object) -> bool:
    return type(a) is type(b) or (is_number(a) and is_number(b))


def _tensors_problem(name: str, saved: dict[Any, Any], wanted: Mapping[str, Tensor]) -> str:
    """What keeps ``saved`` from being loaded where ``wanted`` is ("" if nothing)."""
    if set(saved) != set(wanted):
        odd = sorted(map(str, set(saved) ^ set(wanted)))
        return f"its {name!r} and the model differ in {', '.join(odd[:3])}"
    for key, tensor in wanted.items():
        value = saved[key]
        if not isinstance(tensor, Tensor):  # a module's extra state: its own to check
            continue
        if not isinstance(value, Tensor) or value.shape != tensor.shape:
            got = tuple(value.shape) if isinstance(value, Tensor) else type(value).__name__
            return f"its {name!r}[{key!r}] is {got}, the model's {tuple(tensor.shape)}"
    return ""


# The settings of torch's optimisers that pick how a step is computed, not its numbers
# (the per-tensor loop or the multi-tensor path): a checkpoint may differ in them.
IMPLEMENTATION = ("foreach",)


def _optimizer_problem(saved: dict[Any, Any], optimizer: torch.optim.Optimizer) -> str:
    """What keeps ``saved`` from being loaded into ``optimizer`` ("" if nothing): other
    groups, settings or parameter counts, or a parameter's state of another shape than
    the parameter (the state of torch's optimisers is scalars and tensors shaped like
    their parameter)."""
    groups, state = saved.get("param_groups"), saved.get("state")
    if not isinstance(groups, list) or not isinstance(state, dict):
        return "its 'optimizer' has no param_groups list and state dict"
    if len(groups) != len(optimizer.param_groups):
        return (
            f"its 'optimizer' has {len(groups)} parameter groups, not {len(optimizer.param_groups)}"
        )
    shapes: dict[Any, torch.Size] = {}
    for i, (group, ours) in enumerate(zip(groups, optimizer.param_groups, strict=True)):
        if not isinstance(group, dict) or set(group) != set(ours):
            return f"its 'optimizer' group {i} has other settings than the optimiser's"
        odd = [
            key
            for key in ours
            if key != "params"
            and key not in IMPLEMENTATION
            and not _same_kind(group[key], ours[key])
        ]
        if odd:
            return f"its 'optimizer' group {i} has {odd[0]} {group[odd[0]]!r}"
        ids = group["params"]
        if not isinstance(ids, list) or len(ids) != len(ours["params"]):
            return f"its 'optimizer' group {i} is not of {len(ours['params'])} parameters"
        shapes.update(zip(ids, (p.shape for p in ours["params"]), strict=True))
    for key, entries in state.items():
        if key not in shapes or not isinstance(entries, dict):
            return f"its 'optimizer' has a state for no parameter ({key!r})"
        for name, value in entries.items():
            if isinstance(value, Tensor) and value.ndim > 0 and value.shape != shapes[key]:
                got, shape = tuple(value.shape), tuple(shapes[key])
                return f"its 'optimizer' {name} of parameter {key} is {got}, not {shape}"
    return ""


def _schedule_problem(saved: dict[str, Any] | None, schedule: Schedule | None) -> str:
    """What keeps ``saved`` from being loaded into ``schedule`` ("" if nothing)."""
    if schedule is None:
        return ""  # nothing to set
    if saved is None:
        return "its 'schedule' is None, and the run has a schedule"
    ours = schedule.state_dict()
    if set(saved) != set(ours) or not all(_same_kind(saved[k], ours[k]) for k in ours):
        return "its 'schedule' is not a state of the run's schedule"
    return ""


def _generator_problem(
    data_state: dict[str, Any], torch_state: Tensor, data_rng: np.random.Generator
) -> str:
    """What keeps the states from being set on ``data_rng`` and torch's generator ("" if
    nothing): tried on copies."""
    try:
        copy.deepcopy(data_rng.bit_generator).state = data_state
    except Exception as exc:  # whatever a bit generator refuses a state with
        return f"its 'data_rng' is not a {type(data_rng.bit_generator).__name__} state ({exc})"
    try:
        torch.Generator().set_state(torch_state)
    except Exception as exc:  # whatever torch refuses a state with
        return f"its 'torch_rng' is not a torch generator state ({exc})"
    return ""
