"""Where a memory's rows lie in fixed-size strengths, and the masks of its backward.

The whole-sequence training paths (``memrnn.structures.lean`` and
``memrnn.models.controller.fused``) keep a memory's strengths in one (B, n) tensor whose
size never changes: every row a sequence of T steps can ever write is there from the start, holding
zero until its value is pushed. Zero rows change no sum, pop and read, so the arithmetic
of Eqs. (2)-(11) is the same as on the growing rows of ``memrnn.structures.strengths``.

Rows are laid out so that each end is a fixed side of the tensor:

- queue: row t is the value pushed at step t; it pops and reads at the low rows;
- stack: row T - 1 - t is the value pushed at step t, so its top is also the low rows
  and it costs what a queue costs (no flips);
- deque: 2T rows, centred; step t pushes the bottom value at row T - 1 - t and the top
  value at row T + t; the top is the high rows, the bottom the low ones.

With A_i the sum of the strengths strictly between row i and an end, Eq. (2)'s pop and
Eq. (3)'s read are computed as the paper writes them,

    s'_i = max(0, s_i - max(0, u - A_i))        w_i = min(s_i, max(0, 1 - A_i)),

with A_i an exclusive prefix sum taken from that end, so that the rows that matter
(those with little strength between them and the end) get small partial sums, exact to a
few ulps (see ``memrnn.structures.strengths``), and the same sums, in the same order, as
that module's per-step ones. The inclusive sum C_i = A_i + s_i would save an operation,
but fl(s_i + A_i) - s_i is not A_i: where A_i is exactly 1 or u (a push or pop of
exactly 1) the rounding residue decides which side of a kink the row is on.

The backward is Appendix A's chain rule (Grefenstette et al. 2015, Eqs. 12-18) in matrix
form: ``backward_masks`` computes every 0/1 factor of it for all T steps at once from
the saved strengths (O(n) numbers per step, none of the O(n m) products plain autograd
would save), and ``memrnn.structures.steps`` runs the forward's steps and applies the
backward one step at a time. Kinks follow the paper's footnote 1, the derivative of the
left argument: max(0, x) has slope 0 at x = 0, and min(s, room) has slope 1 in s when s
equals room, so a row of strength 0 still passes dL/dw to s (a push of exactly 0 gets
dL/dd_t = v_t . dL/dr_t, as Eqs. 14 and 18 give).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

End = Literal["low", "high"]
Kind = Literal["stack", "queue", "deque"]


def inclusive(x: Tensor, end: End) -> Tensor:
    """For every row i, the sum of x over row i and the rows between it and ``end``."""
    if end == "high":
        return x.flip(-1).cumsum(-1).flip(-1)
    return x.cumsum(-1)


def beyond(x: Tensor, end: End) -> Tensor:
    """For every row i, the sum of x over the rows strictly between it and ``end``,
    summed from ``end`` inwards (the A_i of the module docstring)."""
    out = torch.zeros_like(x)
    if end == "high":
        out[..., :-1] = inclusive(x[..., 1:], end)
    else:
        torch.cumsum(x[..., :-1], -1, out=out[..., 1:])
    return out


@dataclass(frozen=True)
class Layout:
    """Where a memory of ``kind`` run for ``steps`` steps pops, pushes and reads.

    Attributes:
        kind: "stack", "queue" or "deque".
        steps: T, the number of steps the strengths have room for.
        start: steps taken before step 0, whose rows (``carried``) hold a memory carried
            in from an earlier chunk of the sequence; 0 for an empty memory. The rows are
            those of a run of ``start + steps`` steps, step t being step ``start + t``.
    """

    kind: Kind
    steps: int
    start: int = 0

    @property
    def rows(self) -> int:
        """n, the rows of the strength tensor."""
        total = self.start + self.steps
        return 2 * total if self.kind == "deque" else total

    @property
    def carried(self) -> tuple[int, int]:
        """The rows [lo, hi) of the memory carried in: those written before step 0."""
        return self.window(-1)

    @property
    def ends(self) -> tuple[End, ...]:
        """The ends, top first: each step pops them in this order (Eq. 2, or 7 then 8),
        pushes at them and reads them."""
        return ("high", "low") if self.kind == "deque" else ("low",)

    def push_rows(self, t: int) -> tuple[int, ...]:
        """The rows written at step t, one per end."""
        g, total = self.start + t, self.start + self.steps
        if self.kind == "queue":
            return (g,)
        if self.kind == "stack":
            return (total - 1 - g,)
        return (total + g, total - 1 - g)

    def push_lines(self) -> tuple[tuple[int, int], ...]:
        """For each end, (first, step): step t writes row first + step * t (``push_rows``),
        step being 1 or -1."""
        g, total = self.start, self.start + self.steps
        if self.kind == "queue":
            return ((g, 1),)
        if self.kind == "stack":
            return ((total - 1 - g, -1),)
        return ((total + g, 1), (total - 1 - g, -1))

    def window(self, t: int) -> tuple[int, int]:
        """The rows [lo, hi) written up to step t, those carried in included: the only
        rows a read at step t sees."""
        g, total = self.start + t, self.start + self.steps
        if self.kind == "queue":
            return 0, g + 1
        if self.kind == "stack":
            return total - 1 - g, total
        return total - 1 - g, total + 1 + g

    def to_paper(self, strengths: Tensor) -> Tensor:
        """Strengths (..., n) in the paper's row order: bottom first; for a stack or queue
        row i is the value pushed at step i."""
        return strengths.flip(-1) if self.kind == "stack" else strengths


@dataclass(frozen=True)
class Masks:
    """The 0/1 factors of the backward, for all steps; each (T, E, B, n) in ``dtype``.

    Attributes:
        read_pos: the read weight w = min(s, max(0, 1 - A)) has a slope at all: w = s
            (s <= room, ties included) or A < 1.
        read_over: w = 1 - A, the read limited by the strength beyond the row (s > room
            and A < 1).
        pop_keep: s' > 0 after each pop (the row survives it).
        pop_take: u > A (the pop reaches into the row).
    """

    read_pos: Tensor
    read_over: Tensor
    pop_keep: Tensor
    pop_take: Tensor


def backward_masks(layout: Layout, before: Tensor, after: Tensor, pop: Tensor) -> Masks:
    """The masks for every step from what the forward saved.

    Args:
        before: s_{t-1} for every step, (T, B, n).
        after: s_t for every step, (T, B, n).
        pop: the pops, (T, B, E).
    """
    dtype = before.dtype
    pos, over = [], []
    for end in layout.ends:
        a = beyond(after, end)
        left = after <= (1 - a).clamp_(min=0)  # w = s, ties included
        free = a < 1
        pos.append(left | free)
        over.append(free & ~left)
    keep, take = [], []
    s = before
    for e, end in enumerate(layout.ends):
        reach = pop[..., e : e + 1] - beyond(s, end)
        take.append(reach > 0)
        s = (s - reach.clamp_(min=0)).clamp_(min=0)
        keep.append(s > 0)

    def stacked(masks: list[Tensor]) -> Tensor:
        return torch.stack(masks, dim=1).to(dtype)

    return Masks(stacked(pos), stacked(over), stacked(keep), stacked(take))
