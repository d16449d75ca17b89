"""Append-only storage for the values pushed onto a memory.

The paper's value matrix V_t only ever grows: a row is written once, when its value is
pushed, and never changed (Eqs. 1 and 6). So the rows live in one preallocated buffer
written in place, and a state is just the window [lo, hi) of rows it has seen. Nothing
is copied per step; the buffer doubles when full (amortised O(1) per push).

States stay immutable values: a buffer remembers the window of the newest state built
on it (its tip), and stepping any other state, i.e. branching, first copies that
state's window into a fresh buffer.

Autograd cannot track in-place writes into a tensor that earlier reads saved, so reads go
through ``WindowRead``, which keeps a detached view of exactly the rows it read. Those
rows are never written again, which is what makes skipping the version check safe.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torch.autograd.function import FunctionCtx, once_differentiable

from memrnn.structures.precision import full_precision_backward, full_precision_forward

_MIN_CAPACITY = 16


class ValueBuffer:
    """Rows (B, capacity, m) of pushed values, of which [lo, hi) is the newest window."""

    __slots__ = ("data", "hi", "lo")

    def __init__(self, data: Tensor, lo: int, hi: int) -> None:
        self.data = data
        self.lo = lo
        self.hi = hi

    @classmethod
    def empty(
        cls,
        batch_size: int,
        width: int,
        capacity: int,
        *,
        centred: bool,
        device: torch.device | str | None,
        dtype: torch.dtype,
    ) -> ValueBuffer:
        """An empty buffer; ``centred`` leaves room below the window as well as above it."""
        capacity = max(capacity, _MIN_CAPACITY)
        size = 2 * capacity if centred else capacity
        data = torch.zeros(batch_size, size, width, device=device, dtype=dtype)
        start = capacity if centred else 0
        return cls(data, start, start)

    def write(
        self, lo: int, hi: int, *, bottom: Tensor | None = None, top: Tensor | None = None
    ) -> tuple[ValueBuffer, int, int]:
        """Append values (B, m) below and/or above the window [lo, hi).

        Returns the buffer now holding the new window (this one, or a fresh one after
        branching or growth) and the new window.
        """
        below = int(bottom is not None)
        above = int(top is not None)
        buffer = self
        if (lo, hi) != (self.lo, self.hi) or lo - below < 0 or hi + above > self.data.shape[1]:
            buffer, lo, hi = self._reallocated(lo, hi, room_below=below > 0)
        if bottom is not None:
            lo -= 1
            buffer.data[:, lo] = bottom
        if top is not None:
            buffer.data[:, hi] = top
            hi += 1
        buffer.lo, buffer.hi = lo, hi
        return buffer, lo, hi

    def _reallocated(self, lo: int, hi: int, *, room_below: bool) -> tuple[ValueBuffer, int, int]:
        """A fresh buffer twice the window's size holding a copy of rows [lo, hi)."""
        n = hi - lo
        spare = max(n, _MIN_CAPACITY)
        start = spare if room_below else 0
        size = n + spare * (2 if room_below else 1)
        batch, _, width = self.data.shape
        data = self.data.new_zeros(batch, size, width)
        data[:, start : start + n] = self.data[:, lo:hi]
        return ValueBuffer(data, start, start + n), start, start + n

    def detached(self, lo: int, hi: int) -> tuple[ValueBuffer, int, int]:
        """A fresh buffer holding a copy of rows [lo, hi) cut from the graph, with spare
        rows on both sides (a deque grows at both), and its window."""
        with torch.no_grad():
            return self._reallocated(lo, hi, room_below=True)

    def read(self, weights: Tensor, lo: int, hi: int) -> Tensor:
        """sum_i weights[:, i] * rows[:, lo + i]: a weighted read (B, m) of the window."""
        out: Tensor = WindowRead.apply(weights, self.data, lo, hi)
        return out


class WindowRead(torch.autograd.Function):
    """Batched weighted sum of the rows [lo, hi) of a buffer that is written in place."""

    @staticmethod
    @full_precision_forward
    def forward(ctx: FunctionCtx, weights: Tensor, data: Tensor, lo: int, hi: int) -> Tensor:
        rows = data[:, lo:hi].detach()
        ctx.save_for_backward(weights)
        # Not save_for_backward: later pushes write rows >= hi in place, which would trip
        # its version check although these rows never change.
        ctx.rows = rows  # type: ignore[attr-defined]
        ctx.window = (lo, hi, data.shape[1])  # type: ignore[attr-defined]
        return torch.bmm(weights.unsqueeze(1), rows).squeeze(1)

    @staticmethod
    @full_precision_backward
    @once_differentiable
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        (weights,) = ctx.saved_tensors
        rows: Tensor = ctx.rows
        lo, hi, capacity = ctx.window
        grad_weights = grad_data = None
        if ctx.needs_input_grad[0]:
            grad_weights = torch.bmm(rows, grad.unsqueeze(2)).squeeze(2)
        if ctx.needs_input_grad[1]:
            grad_data = grad.new_zeros(grad.shape[0], capacity, grad.shape[1])
            grad_data[:, lo:hi] = weights.unsqueeze(2) * grad.unsqueeze(1)
        return grad_weights, grad_data, None, None
