"""The state of a neural Stack, Queue or DeQue between steps."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import Tensor

from memrnn.structures.checks import check_float_dtype
from memrnn.structures.values import ValueBuffer
from memrnn.validation import check_int


@dataclass(frozen=True)
class MemoryState:
    """A memory after t steps: strengths s_t (B, n) and the value rows V_t (B, n, m).

    n = t for a stack or queue, 2t for a deque; row 0 is the bottom. States are immutable:
    stepping one never changes it, and stepping the same state twice gives two
    independent branches.
    """

    strengths: Tensor
    buffer: ValueBuffer = field(repr=False)
    lo: int = field(repr=False)
    hi: int = field(repr=False)
    centred: bool = field(default=False, repr=False)  # a deque's: rows grow at both ends

    @property
    def values(self) -> Tensor:
        """The value rows V_t, (B, n, m), a view of the shared buffer: do not write to it."""
        return self.buffer.data[:, self.lo : self.hi]

    @property
    def batch_size(self) -> int:
        return int(self.strengths.shape[0])

    @property
    def width(self) -> int:
        """m, the width of each value."""
        return int(self.buffer.data.shape[2])

    @property
    def size(self) -> int:
        """n, the number of rows written so far."""
        return self.hi - self.lo

    def detach(self) -> MemoryState:
        """This state cut from the graph that computed it (truncated backpropagation
        through time). Its values move to a buffer of their own: the buffer they share
        with earlier states is written in place, which autograd tracks."""
        buffer, lo, hi = self.buffer.detached(self.lo, self.hi)
        return MemoryState(self.strengths.detach(), buffer, lo, hi, self.centred)

    @property
    def dtype(self) -> torch.dtype:
        return self.strengths.dtype

    @property
    def device(self) -> torch.device:
        return self.strengths.device


def empty_state(
    batch_size: int,
    width: int,
    *,
    device: torch.device | str | None,
    dtype: torch.dtype | None,
    capacity: int | None,
    centred: bool,
) -> MemoryState:
    """An empty memory; ``capacity`` (rows per end) only sizes the first buffer."""
    batch_size = check_int("batch_size", batch_size, 1)
    width = check_int("width", width, 1)
    capacity = 0 if capacity is None else check_int("capacity", capacity, 1)
    dtype = torch.get_default_dtype() if dtype is None else dtype
    check_float_dtype(dtype)
    buffer = ValueBuffer.empty(
        batch_size, width, capacity, centred=centred, device=device, dtype=dtype
    )
    strengths = buffer.data.new_zeros(batch_size, 0)
    return MemoryState(strengths, buffer, buffer.lo, buffer.hi, centred)
