"""The settings every run has, and the checks that name a bad one.

A field whose type is ``Literal[...]`` has fixed choices: ``validate`` refuses any other
value by name, for every subclass, and ``memrnn ... --set`` parses it against the same
choices. Experiments extend ``TrainConfig`` with their own fields.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import torch
from torch import nn

from memrnn.training import LoopSettings
from memrnn.training.optimizers import make_optimizer as torch_optimizer
from memrnn.validation import MAX_INT, MAX_SEED, check_float, check_int

Optimizer = Literal["adam", "adamw", "rmsprop", "sgd"]
MonitorMode = Literal["min", "max"]
_DEVICE = re.compile(r"auto|cpu|cuda(:[0-9]+)?")


def choices(kind: Any) -> tuple[Any, ...] | None:
    """The values a ``Literal[...]`` type allows (None for any other type)."""
    return typing.get_args(kind) if typing.get_origin(kind) is Literal else None


def describe_choices(allowed: tuple[Any, ...]) -> str:
    """ "a, b or c": the choices of a field, as its error messages list them."""
    words = [str(value) for value in allowed]
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0]


# Dicts rather than functools.cache, whose typing refuses a class as its key.
_FIELD_TYPES: dict[type, Mapping[str, Any]] = {}
_FieldCheck = tuple[str, Any, tuple[Any, ...] | None]  # a field's name, type and choices
_FIELD_CHECKS: dict[type, tuple[_FieldCheck, ...]] = {}
_SCALARS = (bool, int, float, str, type(None))  # values that copying would leave as they are


def field_types(config_type: type[TrainConfig]) -> Mapping[str, Any]:
    """Each field of ``config_type`` with its type, the annotations resolved (read-only).
    Resolved once per class: ``validate`` runs for every run of a profile, thousands of
    them in the matrix's paper profile."""
    types = _FIELD_TYPES.get(config_type)
    if types is None:
        types = _FIELD_TYPES[config_type] = MappingProxyType(typing.get_type_hints(config_type))
    return types


def _field_checks(config_type: type[TrainConfig]) -> tuple[_FieldCheck, ...]:
    """Each field's name, type and ``choices``, once per class (for ``validate``)."""
    checks = _FIELD_CHECKS.get(config_type)
    if checks is None:
        types = field_types(config_type).items()
        checks = _FIELD_CHECKS[config_type] = tuple((n, t, choices(t)) for n, t in types)
    return checks


@dataclass(frozen=True)
class TrainConfig:
    """Settings every trained run has. Experiments extend this with their own fields.

    Attributes:
        seed: seeds the model's initialisation and the training data.
        steps: optimiser steps.
        batch_size: sequences per step.
        optimizer: "adam", "adamw", "rmsprop" or "sgd".
        lr: learning rate.
        weight_decay: decoupled weight decay with "adamw" (Loshchilov and Hutter), an L2
            penalty with the others (PyTorch's ``weight_decay`` argument); 0 turns it off.
        clip: clip the gradient's global norm to this (0 turns clipping off).
        eval_every: evaluate every this many steps (0: only at the end).
        checkpoint_every: write a checkpoint every this many steps (0: never).
        patience: stop after this many evaluations without improvement (0: never stop).
        monitor: the metric that early stopping and "best" refer to.
        monitor_mode: "max" if larger is better, else "min".
        device: "auto" (CUDA when present), "cpu", "cuda" or "cuda:N".
    """

    seed: int = 0
    steps: int = 1000
    batch_size: int = 10
    optimizer: Optimizer = "adam"
    lr: float = 1e-3
    weight_decay: float = 0.0
    clip: float = 1.0
    eval_every: int = 100
    checkpoint_every: int = 100
    patience: int = 0
    monitor: str = "loss"
    monitor_mode: MonitorMode = "min"
    device: str = "auto"

    def loop_settings(self) -> LoopSettings:
        """How the training loop trains the run: its steps, clipping, evaluations,
        checkpoints and early stopping."""
        return LoopSettings(
            steps=self.steps,
            clip=self.clip,
            eval_every=self.eval_every,
            checkpoint_every=self.checkpoint_every,
            patience=self.patience,
            monitor=self.monitor,
            monitor_mode=self.monitor_mode,
        )

    def group_key(self) -> TrainConfig | None:
        """The config with its seed and learning rate blanked: runs whose keys are equal
        differ in nothing else, and may train as one batched model if their model stacks
        (``Experiment.group_key``)."""
        return dataclasses.replace(self, seed=0, lr=0.0)

    def validate(self) -> None:
        """Raise ValueError naming the first field whose value makes no sense.

        Every field is checked here or in a subclass: choices against their ``Literal``,
        every float must be finite (an infinite learning rate or a NaN clip would only
        fail, or silently do nothing, after training time is spent), counts against
        their ranges. Whether the device is present and the monitor is a metric the run
        reports is the runner's check (``memrnn.runner.checks``): those depend on the
        machine and the experiment, not on the values alone.
        """
        for name, kind, allowed in _field_checks(type(self)):
            value = getattr(self, name)
            if allowed is not None and value not in allowed:
                raise ValueError(f"{name}: expected {describe_choices(allowed)}, got {value!r}")
            if kind is float:
                check_float(name, value)
            elif kind is int:
                check_int(name, value, maximum=MAX_INT)
            elif kind in (str, bool) and not isinstance(value, kind):
                raise ValueError(f"{name}: expected a {kind.__name__}, got {value!r}")
        self.require_positive("steps", "batch_size")
        self.require_at_least(0, "seed", "eval_every", "checkpoint_every", "patience")
        check_int("seed", self.seed, 0, MAX_SEED)
        check_float("clip", self.clip, 0)
        check_float("lr", self.lr, above=0)
        check_float("weight_decay", self.weight_decay, 0)
        if not _DEVICE.fullmatch(self.device):
            raise ValueError(f"device: expected auto, cpu, cuda or cuda:N, got {self.device!r}")

    def require_positive(self, *names: str) -> None:
        """Raise ValueError naming the first of the int fields ``names`` that is below 1."""
        self.require_at_least(1, *names)

    def require_at_least(self, minimum: int, *names: str) -> None:
        """Raise ValueError naming the first of the int fields ``names`` below ``minimum``."""
        for name in names:
            check_int(name, getattr(self, name), minimum)

    def require_in(self, name: str, low: float, high: float, *, open_low: bool = False) -> None:
        """Raise ValueError unless the float field ``name`` lies in [low, high] (with
        ``open_low``: in (low, high])."""
        if open_low:
            check_float(name, getattr(self, name), above=low, maximum=high)
        else:
            check_float(name, getattr(self, name), low, high)

    def to_dict(self) -> dict[str, Any]:
        """The fields by name, equal to ``dataclasses.asdict``'s, which deep-copies every
        value: skipped where all are scalars, since a profile's listing makes thousands."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if all(type(value) in _SCALARS for value in values.values()):
            return values
        return dataclasses.asdict(self)


def make_optimizer(config: TrainConfig, params: Iterable[nn.Parameter]) -> torch.optim.Optimizer:
    """The optimiser ``config`` names, with its learning rate and weight decay."""
    return torch_optimizer(config.optimizer, params, config.lr, config.weight_decay)
