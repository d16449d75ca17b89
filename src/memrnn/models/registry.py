"""The trainable sequence models by name, built from a task's sizes.

Every registered model follows one calling convention:

- built as ``build_model(name, input_size, output_size, **options)``, where
  ``input_size`` is the task's input vocabulary (or feature count) and ``output_size``
  its output classes (or values); sizes the options leave out take the registry's
  small defaults; ``build_model_for(name, task, **options)`` takes both sizes from a
  ``memrnn.tasks.Task`` and checks that the model reads the task's kind of input;
- called as ``model(inputs)`` on token ids (B, T), or on float vectors (B, T, F) where
  ``"vectors"`` is in its ``accepts``; it returns per-step outputs (B, T, output_size);
- a model whose memory has push and pop gates also has ``trace(inputs)``, which returns
  a ``memrnn.models.Trace``: the same outputs and the gates of every step;
- it keeps how it was built as ``model.memrnn_build`` (a ``ModelBuild``: the name, the
  sizes and the options), which ``memrnn.models.save_model`` records;
- a recurrent model (all but ``transformer`` and ``deep_stack_machine``) also takes an
  initial state, ``model(inputs, state)``, and has ``stream(inputs, state)``, which returns
  the outputs and the state after the last step, and ``initial_state(batch_size)``, the
  state that ``None`` stands for (``memrnn.models.state``).

``memrnn.models.zoo`` registers memrnn's own models; ``register_model`` adds others.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from torch import nn

from memrnn.models.checks import InputKind
from memrnn.tasks.base import Task
from memrnn.validation import check_choice

INPUT_KINDS: tuple[InputKind, ...] = ("tokens", "vectors")


@dataclass(frozen=True)
class RegisteredModel:
    """A name in the registry and how it builds its model.

    Attributes:
        name: the registered name.
        model: the class (or function) called as ``model(input_size, output_size, **options)``.
        accepts: the input kinds it reads (``model.accepts``).
        fixed: arguments the name stands for (``memory="stack"`` for ``stack_lstm``); an
            option may not change them.
        defaults: small sizes used where the options give none.
    """

    name: str
    model: Callable[..., nn.Module]
    accepts: tuple[InputKind, ...]
    fixed: Mapping[str, Any] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelBuild:
    """How ``build_model`` made a model, kept on it as ``model.memrnn_build`` so that
    ``memrnn.models.save_model`` needs nothing else to describe it.

    Attributes:
        name: the registered name.
        input_size, output_size: the sizes it was built for.
        options: every build option it was made with, the registry's defaults included
            (its fixed arguments left out).
    """

    name: str
    input_size: int
    output_size: int
    options: Mapping[str, Any]


_REGISTRY: dict[str, RegisteredModel] = {}


def register_model(
    name: str,
    model: Callable[..., nn.Module],
    *,
    fixed: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> RegisteredModel:
    """Register ``model`` under ``name``; returns the entry.

    Args:
        name: a new name.
        model: a class (or function) called as ``model(input_size, output_size, **options)``
            whose ``accepts`` attribute lists the input kinds it reads.
        fixed: arguments the name stands for, which options may not change.
        defaults: values for arguments the options leave out.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name: expected a non-empty string, got {name!r}")
    if name in _REGISTRY:
        raise ValueError(f"name: {name!r} is already registered")
    accepts = getattr(model, "accepts", None)
    if not isinstance(accepts, tuple) or not accepts or not set(accepts) <= set(INPUT_KINDS):
        raise TypeError(
            f"model: expected an ``accepts`` attribute, a tuple of {INPUT_KINDS}, got {accepts!r}"
        )
    fixed, defaults = dict(fixed or {}), dict(defaults or {})
    both = sorted(set(fixed) & set(defaults))
    if both:
        raise ValueError(f"defaults: {both} are fixed already")
    entry = RegisteredModel(
        name, model, accepts, MappingProxyType(fixed), MappingProxyType(defaults)
    )
    _REGISTRY[name] = entry
    return entry


def registered_model(name: str) -> RegisteredModel:
    """The registry's entry for ``name``."""
    return _REGISTRY[check_choice("name", name, model_names())]


def model_names(accepts: InputKind | None = None) -> list[str]:
    """The registered names, sorted; with ``accepts``, those that read that input kind."""
    check_choice("accepts", accepts, (*INPUT_KINDS, None))
    return sorted(n for n, e in _REGISTRY.items() if accepts is None or accepts in e.accepts)


def build_model(name: str, input_size: int, output_size: int, **options: Any) -> nn.Module:
    """The model ``name`` for a task with ``input_size`` input symbols (or features) and
    ``output_size`` outputs per step; ``options`` override the registry's defaults.

    >>> model = build_model("stack_lstm", 5, 3, hidden_size=8)
    >>> import torch
    >>> model(torch.tensor([[0, 4, 2]])).shape
    torch.Size([1, 3, 3])
    """
    entry = registered_model(name)
    for key, value in entry.fixed.items():
        if key in options:
            raise ValueError(f"{key}: {name!r} stands for {key}={value!r}, got {options[key]!r}")
    taken = _options(entry.model)
    unknown = sorted(set(options) - taken) if taken is not None else []
    if taken is not None and unknown:
        raise ValueError(
            f"{unknown[0]}: {name!r} takes no such option; its options are "
            f"{', '.join(sorted(taken - set(entry.fixed)))}"
        )
    chosen = {**entry.defaults, **options}
    model = entry.model(input_size, output_size, **{**chosen, **entry.fixed})
    model.memrnn_build = ModelBuild(name, input_size, output_size, chosen)  # type: ignore[assignment]
    return model


def model_build(model: nn.Module) -> ModelBuild | None:
    """How ``build_model`` made ``model``, or None for a model it did not make."""
    found = getattr(model, "memrnn_build", None)
    return found if isinstance(found, ModelBuild) else None


def _options(model: Callable[..., nn.Module]) -> set[str] | None:
    """The keyword options ``model`` takes after its two sizes, or None where it takes
    any (``**kwargs``) or its signature cannot be read."""
    try:
        parameters = list(inspect.signature(model).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters[2:] if p.kind is not inspect.Parameter.VAR_POSITIONAL}


def build_model_for(name: str, task: Task, **options: Any) -> nn.Module:
    """The model ``name`` for ``task``: built with the task's ``input_size`` and
    ``output_size`` (``build_model``), so that ``model(batch.inputs)`` gives the outputs
    (B, T, task.output_size) that ``task.loss`` and ``task.score`` take.

    >>> from memrnn.tasks import make_task
    >>> import numpy as np
    >>> task = make_task("rsm_dyck1")
    >>> batch = task.sample_batch(np.random.default_rng(0), 4, 2, 10)
    >>> model = build_model_for("stack_lstm", task, hidden_size=8)
    >>> task.loss(model(batch.inputs), batch).backward()

    Raises:
        TypeError: ``task`` is not a Task.
        ValueError: the model does not read the task's kind of input (its ``accepts``),
            or as ``build_model``.
    """
    if not isinstance(task, Task):
        raise TypeError(f"task: expected a memrnn.tasks.Task, got {type(task).__name__}")
    entry = registered_model(name)
    if task.input_kind not in entry.accepts:
        raise ValueError(
            f"task: {name!r} reads {' and '.join(entry.accepts)}, not the {task.input_kind} "
            f"of {task!r}; the models that do: {model_names(task.input_kind)}"
        )
    return build_model(name, task.input_size, task.output_size, **options)
