"""The recurrent state a model carries from one chunk of a sequence to the next.

Every recurrent model follows ``nn.LSTM``'s habit: ``model(inputs, state)`` starts from
an initial state (``None``: the model's own, learned h_0 and c_0 where it has them and an
empty memory), and ``model.stream(inputs, state)`` returns the per-step outputs and the
state after the last step, to feed the next chunk. A sequence run in chunks, each from
the state the last one returned, gives the outputs of the whole sequence run at once.

The states of the models built on ``nn.LSTM`` are its own (h_n, c_n) tuple, (layers, B,
H) each, and the GRU's is ``nn.GRU``'s h_n; the others are small frozen dataclasses,
this module's and ``memrnn.models.controller.Carry``. ``detach_state`` cuts any of them
from the graph that computed it, for truncated backpropagation through time (Williams
and Peng 1990): the loss of the next chunk then sends no gradient into this one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import torch
from torch import Tensor

S = TypeVar("S")


def _detached(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.detach()
    if value is None:
        return None
    return value.detach()


class Detachable:
    """A frozen dataclass of tensors (and states that have ``detach``) whose ``detach``
    returns the same state with each of them detached."""

    def detach(self: S) -> S:
        """This state with every tensor cut from the graph that computed it."""
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        return dataclasses.replace(  # type: ignore[type-var]
            self, **{f.name: _detached(getattr(self, f.name)) for f in fields}
        )


def detach_state(state: S) -> S:
    """``state``, any model's, with every tensor detached: a tensor, a tuple of tensors
    (``nn.LSTM``'s (h, c)), or a state with a ``detach`` method; ``None`` stays ``None``.

    Raises:
        TypeError: naming ``state``, for anything else.
    """
    if state is None or isinstance(state, Tensor):
        return _detached(state)
    if isinstance(state, tuple) and all(isinstance(x, Tensor) for x in state):
        return type(state)(x.detach() for x in state)
    if callable(getattr(state, "detach", None)):
        return state.detach()  # type: ignore[attr-defined]
    raise TypeError(f"state: expected a model's state, got {type(state).__name__}")


@dataclass(frozen=True)
class HiddenState(Detachable):
    """An RNN's state h_t (B, R), ``IRNN``'s."""

    h: Tensor


@dataclass(frozen=True)
class AttentionState(Detachable):
    """``AttentionLSTM``'s state after t steps: h_t and c_t (B, R), the context c_t it
    read last (B, R), and the past hidden states it attends over (B, t, R)."""

    h: Tensor
    c: Tensor
    context: Tensor
    past: Tensor


@dataclass(frozen=True)
class FastWeightsState(Detachable):
    """``FastWeightsRNN``'s state after t steps: h_t (B, R) and its fast memory, the past
    states h_1..h_t (B, t, R) that A_t is made of (``form="attention"``; ``matrix`` None)
    or A_t itself (B, R, R) (``form="matrix"``; ``past`` None)."""

    h: Tensor
    past: Tensor | None
    matrix: Tensor | None


@dataclass(frozen=True)
class StackRNNState(Detachable):
    """``SuperpositionStackRNN``'s state: h_t (B, H), the LSTM cell's c_t (B, H) (None
    for the other cells) and the stack (B, D, m)."""

    h: Tensor
    c: Tensor | None
    stack: Tensor


@dataclass(frozen=True)
class TapeState(Detachable):
    """``TapeRNN``'s state: h_t (B, H), the tape (B, M, c) with its head at cell 0, and
    each row's input length (B,), int64, the size of its jumps."""

    h: Tensor
    tape: Tensor
    length: Tensor


def _shape_text(shape: Sequence[int | None], names: str) -> str:
    sizes = ", ".join("any" if n is None else str(n) for n in shape)
    return f"{names} = ({sizes})"


def check_part(
    name: str, x: object, shape: Sequence[int | None], names: str, like: Tensor
) -> Tensor:
    """``x``, part ``name`` of a state (``"state.h"``), checked: a tensor of ``shape``
    (None: any size), spelled ``names`` ("(B, H)"), on ``like``'s device, in its dtype (or
    any floating-point dtype under autocast, whose operations return lower precision).

    Raises:
        ValueError: naming ``name``, with the shape expected.
    """
    if (
        not isinstance(x, Tensor)
        or x.ndim != len(shape)
        or any(n is not None and n != k for n, k in zip(shape, x.shape, strict=True))
    ):
        got = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
        raise ValueError(f"{name}: expected a tensor {_shape_text(shape, names)}, got {got}")
    if x.device != like.device:
        raise ValueError(f"{name}: on {x.device}, but the model is on {like.device}")
    autocast = torch.is_autocast_enabled(like.device.type) and x.is_floating_point()
    if x.dtype != like.dtype and not autocast:
        raise ValueError(f"{name}: {x.dtype}, but the model is {like.dtype}")
    return x


def check_type(state: object, kind: type, expected: str) -> None:
    """Raise ValueError naming ``state`` unless it is a ``kind``, described ``expected``."""
    if not isinstance(state, kind):
        raise ValueError(f"state: expected {expected}, got {type(state).__name__}")


def check_lstm_state(
    state: object, layers: int, batch: int, hidden: int, like: Tensor
) -> tuple[Tensor, Tensor]:
    """``nn.LSTM``'s (h_0, c_0), each (layers, B, H), checked (``check_part``).

    Raises:
        ValueError: naming ``state``.
    """
    shape = (layers, batch, hidden)
    names = "(layers, B, H)"
    if not isinstance(state, tuple) or len(state) != 2:
        raise ValueError(
            f"state: expected nn.LSTM's (h, c), each {_shape_text(shape, names)}, got "
            f"{type(state).__name__}{'' if not isinstance(state, tuple) else f' of {len(state)}'}"
        )
    h, c = (check_part(f"state[{i}]", x, shape, names, like) for i, x in enumerate(state))
    return h, c
