"""Strength arithmetic shared by the vectorised Stack, Queue and DeQue.

Every function takes strengths ``s`` of shape (B, n), row 0 at the bottom, and costs a
fixed number of tensor operations whatever n is: the paper's sums over rows are prefix
and suffix sums, its max(0, .) is a ReLU and its min is a ``where``.

Numerical stability. The sum of the strengths above row i is computed as a cumulative
sum taken from the top down (flip, cumsum, flip), never as "total minus prefix". The
rows that matter are those with less than one unit of strength above them; summing from
the top keeps their partial sums small and exact to a few ulps, whereas total minus
prefix cancels two large numbers once the memory holds many units of strength (a long
run of pushes), and loses the digits that decide the reads. The float32 test at
T = 2048 pins this.

Kinks follow the paper's footnote 1 (take the derivative of the left argument):
``relu`` has derivative 0 at 0, which is max(0, x)'s left argument, and ``where(s <=
room, s, room)`` sends the gradient to s when s == room, which is min(s, room)'s left
argument.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor

Side = Literal["top", "bottom"]


def sums_above(s: Tensor) -> Tensor:
    """sum_{j > i} s[:, j] for every row i, summed from the top down."""
    if s.shape[-1] == 0:
        return s
    inclusive = s.flip(-1).cumsum(-1).flip(-1)
    return torch.cat([inclusive[..., 1:], torch.zeros_like(s[..., :1])], dim=-1)


def sums_below(s: Tensor) -> Tensor:
    """sum_{j < i} s[:, j] for every row i, summed from the bottom up."""
    if s.shape[-1] == 0:
        return s
    inclusive = s.cumsum(-1)
    return torch.cat([torch.zeros_like(s[..., :1]), inclusive[..., :-1]], dim=-1)


def _sums_beyond(s: Tensor, side: Side) -> Tensor:
    return sums_above(s) if side == "top" else sums_below(s)


def pop(s: Tensor, u: Tensor, side: Side) -> Tensor:
    """Remove strength ``u`` (B,) from one end: Eqs. (2), (4), (7), (8).

    s'[i] = max(0, s[i] - max(0, u - sum of the strengths between row i and that end)).
    """
    reach = torch.relu(u.unsqueeze(-1) - _sums_beyond(s, side))
    return torch.relu(s - reach)


def read_weights(s: Tensor, side: Side) -> Tensor:
    """Weight of each row in a read from one end: Eqs. (3), (5), (10), (11).

    w[i] = min(s[i], max(0, 1 - sum of the strengths between row i and that end)).
    """
    room = torch.relu(1 - _sums_beyond(s, side))
    return torch.where(s <= room, s, room)
