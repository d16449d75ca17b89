"""Hand-written autograd Functions under mixed precision (``torch.autocast``).

Autocast casts each matrix product's inputs to the lower precision (bfloat16 on a CPU,
float16 or bfloat16 on CUDA) but leaves elementwise operations and ``out=`` buffers in
float32, so a Function that mixes the two in its own loop meets a dtype mismatch. A
memory's strengths also need the range and precision of float32: they are sums of many
gates compared with 1 (Grefenstette et al. 2015, Eqs. 2-3). So the Functions here run in
full precision whatever the context, as ``torch.amp.custom_fwd(cast_inputs=torch.float32)``
does for one device type, but on any device: ``full_precision_forward`` casts the
floating-point inputs below float32 up to it and turns autocast off on their devices,
``full_precision_backward`` turns it off for the backward. Autograd casts each input's
gradient back to the input's own dtype. Outside autocast both are a no-op and change no number.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any, TypeVar

import torch
from torch import Tensor

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")


def _autocast_devices(args: tuple[Any, ...]) -> list[str]:
    """The device types of the tensors in ``args`` on which autocast is enabled."""
    devices = {a.device.type for a in args if isinstance(a, Tensor)}
    return sorted(d for d in devices if torch.is_autocast_enabled(d))


def _widened(x: Any) -> Any:
    """A floating-point tensor below float32 as float32; anything else as it is."""
    if isinstance(x, Tensor) and x.is_floating_point() and x.dtype not in _FULL:
        return x.float()
    return x


_FULL = (torch.float32, torch.float64)


def _without_autocast(devices: list[str], fn: Callable[..., Any], *args: Any) -> Any:
    with ExitStack() as stack:
        for device in devices:
            stack.enter_context(torch.autocast(device, enabled=False))
        return fn(*args)


def autocast_dtype(device_type: str) -> torch.dtype | None:
    """The dtype autocast lowers matrix products to on ``device_type``, or None where
    autocast is off there."""
    if not torch.is_autocast_enabled(device_type):
        return None
    get = getattr(torch, "get_autocast_dtype", None)  # torch 2.4 and later
    if get is not None:
        dtype: torch.dtype = get(device_type)
        return dtype
    return (
        torch.get_autocast_cpu_dtype() if device_type == "cpu" else torch.get_autocast_gpu_dtype()
    )


def from_autocast(x: Tensor, dtype: torch.dtype) -> Tensor:
    """``x`` in ``dtype`` where autocast made it: under autocast on ``x``'s device, a
    tensor in autocast's lower dtype (a linear layer's output) becomes ``dtype``, the
    memory's own (differentiably); anything else is returned as it is, for the checks."""
    if isinstance(x, Tensor) and x.dtype != dtype and x.dtype == autocast_dtype(x.device.type):
        return x.to(dtype)
    return x


def widened(x: Tensor | None) -> Tensor | None:
    """A floating-point tensor below float32 as float32 (differentiably); anything else,
    and None, as it is."""
    out: Tensor | None = _widened(x)
    return out


def in_full_precision(fn: Callable[..., R], *args: Any) -> R:
    """``fn(*args)`` with autocast off on the devices of the tensors in ``args`` where it
    is on (its tensors already in full precision: ``widened``)."""
    devices = _autocast_devices(args)
    if not devices:
        return fn(*args)
    out: R = _without_autocast(devices, fn, *args)
    return out


def at_full_precision(fn: Callable[..., R], *args: Any) -> R:
    """``fn(*args)``; under autocast, with its floating-point tensor arguments of fewer
    than 32 bits as float32 and autocast off (float32 and float64 kept as they are)."""
    devices = _autocast_devices(args)
    if not devices:
        return fn(*args)
    out: R = _without_autocast(devices, fn, *(_widened(a) for a in args))
    return out


def full_precision_forward(forward: F) -> F:
    """Decorate an autograd Function's ``forward(ctx, *inputs)`` to run
    ``at_full_precision``."""

    @functools.wraps(forward)
    def wrapped(ctx: Any, *args: Any) -> Any:
        return at_full_precision(functools.partial(forward, ctx), *args)

    return wrapped  # type: ignore[return-value]


def full_precision_backward(backward: F) -> F:
    """Decorate an autograd Function's ``backward(ctx, *grads)`` to run with autocast off,
    as its ``full_precision_forward`` did (whose outputs, and so the gradients that come
    in, are already in full precision)."""

    @functools.wraps(backward)
    def wrapped(ctx: Any, *grads: Any) -> Any:
        devices = _autocast_devices(grads)
        if not devices:
            return backward(ctx, *grads)
        return _without_autocast(devices, backward, ctx, *grads)

    return wrapped  # type: ignore[return-value]
