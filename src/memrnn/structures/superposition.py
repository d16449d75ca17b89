"""The superposition stack of Joulin and Mikolov (2015), as used by Suzgun et al. (2019).

The stack is a fixed number of rows (depth D, width m), row 0 on top. A step blends
three whole stacks by the controller's action weights:

    push:  (v, s[0], ..., s[D-2])      the new value on top; the bottom row falls off
    pop:   (s[1], ..., s[D-1], 0)      everything moves up; zeros enter at the bottom
    no-op: (s[0], ..., s[D-1])

    s' = a_push * push + a_pop * pop + a_noop * no-op

Suzgun et al.'s Stack-RNN uses push and pop only (a softmax over two actions), which is
``noop=None`` here. The read is the top row, s'[0].

After t steps from an empty stack only the top min(t, D) rows can be nonzero, and a model
that is given a depth D for its longest test sequences trains on much shorter ones.
``with_room`` lets it keep just the rows that can be nonzero (and the zero row a push
drops), growing the stack as it fills; on a CPU the steps then give the same numbers, bit
for bit, as on all D rows (``with_room`` says why).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from memrnn.structures.checks import (
    check_float_dtype,
    check_tensor,
    check_unit_interval,
)
from memrnn.validation import check_flag, check_int


class SuperpositionStack:
    """A differentiable stack of fixed depth whose rows are blended by action weights.

    Args:
        validate: check that the action weights lie in [0, 1] and hold no NaN (one read
            back from the device per call).
    """

    def __init__(self, *, validate: bool = True) -> None:
        self.validate = check_flag("validate", validate)

    def __repr__(self) -> str:
        return f"SuperpositionStack(validate={self.validate})"

    def initial_state(
        self,
        batch_size: int,
        width: int,
        depth: int,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> Tensor:
        """An empty stack: zeros of shape (B, depth, width)."""
        batch_size = check_int("batch_size", batch_size, 1)
        width = check_int("width", width, 1)
        depth = check_int("depth", depth, 1)
        if dtype is not None:
            check_float_dtype(dtype)
        return torch.zeros(batch_size, depth, width, device=device, dtype=dtype)

    def step(
        self,
        stack: Tensor,
        value: Tensor,
        push: Tensor,
        pop: Tensor,
        noop: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Blend the pushed, popped (and unchanged) stacks; return (top row, new stack).

        ``stack`` is (B, D, m), ``value`` (B, m), the weights (B,). The weights are used
        as given: a softmax makes them sum to one, but nothing here requires it.
        """
        if not isinstance(stack, Tensor) or stack.ndim != 3 or stack.shape[1] < 1:
            got = tuple(stack.shape) if isinstance(stack, Tensor) else type(stack).__name__
            raise ValueError(f"stack: expected shape (B, D, m) with D >= 1, got {got}")
        check_float_dtype(stack.dtype)
        b, _, m = stack.shape
        where = (stack.dtype, stack.device)
        check_tensor("value", value, (b, m), *where, f"(B, m) = ({b}, {m})")
        weights = {"push": push, "pop": pop} | ({"noop": noop} if noop is not None else {})
        for name, weight in weights.items():
            check_tensor(name, weight, (b,), *where, f"(B,) = ({b},)")
            if self.validate:
                check_unit_interval(name, weight)
        pushed = torch.cat([value.unsqueeze(1), stack[:, :-1]], dim=1)
        popped = torch.cat([stack[:, 1:], torch.zeros_like(stack[:, :1])], dim=1)
        new = push[:, None, None] * pushed + pop[:, None, None] * popped
        if noop is not None:
            new = new + noop[:, None, None] * stack
        return new[:, 0], new


def with_room(stack: Tensor, filled: int, depth: int) -> Tensor:
    """``stack`` (B, r, m), whose rows from ``filled`` on are zero, with zero rows added
    below so that one more step fits: at least ``filled`` + 1 rows (the row a push drops
    is then a zero one, as on a stack of ``depth`` rows that is not full), or ``depth``.

    A step's numbers are then those of the same step on all ``depth`` rows, bit for bit:
    the rows left out are zero and stay zero, and the sums over rows, the action weights'
    gradients (dL/ds' times the pushed, popped or kept stack, summed), add the same
    products in the same order: PyTorch's CPU sums take a row's numbers in chunks of at
    most 64 (four vectors of up to 16) and leave the rest to a scalar tail, and rows come
    in blocks of a multiple of 64 numbers, so every nonzero product keeps its place in a
    chunk (the tests compare the two ways; one row at a time rounds differently). A
    GPU's sums group their terms by size, so there the gradients may round differently
    from all D rows, as any change of size may.
    """
    rows, width = stack.shape[1], stack.shape[2]
    wanted = room(rows, filled, depth, width)
    if wanted == rows:
        return stack
    return torch.cat([stack, stack.new_zeros(stack.shape[0], wanted - rows, width)], dim=1)


def room(rows: int, filled: int, depth: int, width: int) -> int:
    """The rows ``with_room`` gives a stack of ``rows`` rows of ``width``."""
    if rows >= min(depth, filled + 1):
        return rows
    block = 64 // math.gcd(width, 64)  # rows per block of a multiple of 64 numbers
    return min(depth, -(-(filled + 1) // block) * block)
