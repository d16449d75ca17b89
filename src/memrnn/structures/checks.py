"""Tensor checks at the public boundary of the memories and of the networks above them.

The lowest layer that uses torch keeps them; the checks of plain arguments are torch-free,
in :mod:`memrnn.validation`. Shape, dtype and device checks are free. Range checks on push
and pop (in [0, 1], no NaN) read one boolean back from the device per call; a controller
whose gates come out of a sigmoid can switch them off with ``validate=False``. Under
``torch.compile`` a range check is an assertion computed with the graph instead (no read
back, no graph break; it raises a RuntimeError when the graph runs).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor


def check_tensor(
    name: str,
    x: object,
    shape: Sequence[int],
    dtype: torch.dtype,
    device: torch.device,
    what: str,
) -> None:
    """Raise ValueError naming ``name`` unless x is a tensor of this shape, dtype, device.

    ``what`` describes the expected shape in words, e.g. "(B, T, m) = (3, 10, 8)".
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(x).__name__}")
    if tuple(x.shape) != tuple(shape):
        raise ValueError(f"{name}: expected shape {what}, got {tuple(x.shape)}")
    if x.dtype != dtype:
        raise ValueError(f"{name}: dtype {x.dtype} does not match the memory's dtype {dtype}")
    if x.device != device:
        raise ValueError(f"{name}: on device {x.device} but the memory is on {device}")


def check_unit_interval(name: str, x: Tensor) -> None:
    """Raise ValueError naming ``name`` if any entry is NaN or outside [0, 1]."""
    if x.numel() == 0:
        return
    inside = (x >= 0) & (x <= 1)  # NaN fails both comparisons
    if torch.compiler.is_compiling():
        torch._assert_async(inside.all(), f"{name}: must lie in [0, 1], without NaN")
        return
    if not bool(inside.all()):
        if bool(torch.isnan(x).any()):
            raise ValueError(f"{name}: contains NaN")
        raise ValueError(
            f"{name}: must lie in [0, 1], found values from {x.min().item():g} "
            f"to {x.max().item():g}"
        )


def check_float_dtype(dtype: torch.dtype) -> None:
    if not dtype.is_floating_point:
        raise ValueError(f"dtype: a memory needs a floating-point dtype, got {dtype}")
