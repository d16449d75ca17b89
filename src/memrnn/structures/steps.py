"""The memory steps of one whole-sequence run, forward and backward, on fixed-size
strengths (``memrnn.structures.layout``), with their views and scratch made once.

A step is some fifteen small tensor operations on (B, n) strengths. At the paper's sizes
each costs a few microseconds, and so would the indexing that finds its operands (a row
of the strengths, a step's slice of the read weights, the pushed row) and the allocation
of its result. So ``ForwardSteps`` and ``BackwardSteps`` take every per-step view of the
run's tensors at once (``unbind``, and a strided view for the pushed rows, which move by
one row per step) and write every intermediate into a buffer made once. The arithmetic,
and the order of every sum, is that of Eqs. (2)-(11) and of Appendix A's Eqs. (12)-(18)
(Grefenstette et al. 2015) as the layout's docstring writes them.

On a CPU the controllers' compiled loop (``memrnn.models.controller.loops``) does the
same arithmetic row by row in plain loops, computing the backward's masks as it goes;
these classes are the reference it equals bit for bit, and run on a GPU.

A stack's and a queue's backward sums the strengths from the high rows (the other end
from where they pop and read), which costs two flips per sum; ``BackwardSteps`` then runs
on row-reversed tensors, where those sums are plain cumulative sums over the same numbers
in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from memrnn.structures.layout import End, Layout, Masks


def rows_by_step(x: Tensor, first: int, step: int) -> Tensor:
    """The (T, B) view x[t, :, first + step * t] of x (T, B, n), for step = 1 or -1."""
    s_t, s_b, s_n = x.stride()
    return x.as_strided(
        (x.shape[0], x.shape[1]), (s_t + step * s_n, s_b), x.storage_offset() + first * s_n
    )


def _mirrored(end: End) -> End:
    return "high" if end == "low" else "low"


class _Sums:
    """Sums over rows into buffers made once, each (B, n)."""

    def __init__(self, like: Tensor) -> None:
        # A_i of the layout's docstring for each end; the row at that end stays zero.
        self.beyond = {"low": torch.zeros_like(like), "high": torch.zeros_like(like)}
        self.inclusive_out = torch.empty_like(like)

    def beyond_of(self, x: Tensor, end: End) -> Tensor:
        """``layout.beyond``: the sum over the rows strictly between row i and ``end``."""
        out = self.beyond[end]
        if end == "low":
            torch.cumsum(x[:, :-1], -1, out=out[:, 1:])
        else:
            out[:, :-1] = x[:, 1:].flip(-1).cumsum(-1).flip(-1)
        return out

    def inclusive_of(self, x: Tensor, end: End) -> Tensor:
        """``layout.inclusive``: the sum over row i and the rows between it and ``end``."""
        if end == "low":
            return torch.cumsum(x, -1, out=self.inclusive_out)
        return self.inclusive_out.copy_(x.flip(-1).cumsum(-1).flip(-1))


class ForwardSteps:
    """Step t of a run: pop, push, then read, as ``Layout`` lays the rows out.

    Args:
        layout: the memory's layout.
        strengths: (T + 1, B, n), s_{t-1} at index t; step t writes index t + 1.
        weights: (T, E, B, n), receives the read weights of each end.
    """

    def __init__(self, layout: Layout, strengths: Tensor, weights: Tensor) -> None:
        self.ends = layout.ends
        self.strengths = strengths.unbind(0)
        # by end, then step: one unbind per end (an unbind per step costs more than
        # the selects it makes)
        self.weights = [w.unbind(0) for w in weights.unbind(1)]
        self.pushed = [
            rows_by_step(strengths[1:], first, step).unbind(0)
            for first, step in layout.push_lines()
        ]
        like = strengths[0]
        self.sums = _Sums(like)
        self.reach = torch.empty_like(like)
        self.mid = torch.empty_like(like)  # s between a deque's two pops
        self.room = torch.empty_like(like)
        # 1 as a 0-d tensor: a Python number costs a conversion per operation
        self.one = like.new_ones(())

    def __call__(self, t: int, push: Sequence[Tensor], pop: Sequence[Tensor]) -> None:
        """Step t with the pushes (B,) and pops (B, 1) of each end, top first."""
        s = self.strengths[t]
        s_out = self.strengths[t + 1]
        last = len(self.ends) - 1
        for e, end in enumerate(self.ends):
            reach = torch.sub(pop[e], self.sums.beyond_of(s, end), out=self.reach).relu_()
            s = torch.sub(s, reach, out=s_out if e == last else self.mid).relu_()
        for e, rows in enumerate(self.pushed):
            rows[t].copy_(push[e])
        for e, end in enumerate(self.ends):
            room = torch.sub(self.one, self.sums.beyond_of(s_out, end), out=self.room).relu_()
            torch.minimum(s_out, room, out=self.weights[e][t])


class BackwardSteps:
    """The vector-Jacobian product of ``ForwardSteps``, one step at a time, from the last.

    Its row-indexed tensors (the strengths' gradient, the read weights' gradients, the
    masks) are row-reversed where ``reversed_rows`` says so.

    Args:
        layout: the memory's layout.
        masks: ``backward_masks`` of the run, each (T, E, B, n), row-reversed with the rest.
        grad_s: (B, n) dL/ds_T, which the steps then overwrite with dL/ds_{t-1}.
        grad_push, grad_pop: (T, B, E) receive dL/dpush and dL/dpop.
    """

    def __init__(self, layout: Layout, masks: Masks, grad_s: Tensor, grad_push: Tensor,
                 grad_pop: Tensor) -> None:  # fmt: skip
        rev = reversed_rows(layout)
        n = grad_s.shape[1]
        self.ends = layout.ends
        # the end each step's two sums run from, in the order the tensors are kept
        self.from_ends = sum_ends(layout)
        self.grad = grad_s
        self.masks = [  # by mask, end, then step, as the weights of ``ForwardSteps``
            [m.unbind(0) for m in x.unbind(1)]
            for x in (masks.read_pos, masks.read_over, masks.pop_keep, masks.pop_take)
        ]
        columns = grad_s.unbind(1)
        self.pushed = [
            [columns[n - 1 - row if rev else row] for row in range(first, last, step)]
            for first, step in layout.push_lines()
            for last in [first + step * layout.steps]
        ]
        self.grad_push = [x.unbind(0) for x in grad_push.unbind(2)]
        self.grad_pop = [x.unbind(0) for x in grad_pop.unbind(2)]
        self.sums = _Sums(grad_s)
        self.g = torch.empty_like(grad_s)
        self.h = torch.empty_like(grad_s)

    def __call__(self, t: int, grad_weights: Tensor) -> Tensor:
        """Step t with dL/d(read weights) (E, B, n); returns dL/ds_{t-1} (B, n), a buffer
        the next call overwrites."""
        pos, over, keep, take = ([end[t] for end in m] for m in self.masks)
        grad = self.grad
        for e, end in enumerate(self.from_ends):
            g = torch.mul(grad_weights[e], pos[e], out=self.g)
            grad += g
            grad -= self.sums.inclusive_of(torch.mul(g, over[e], out=self.h), end)
        for e, rows in enumerate(self.pushed):
            self.grad_push[e][t].copy_(rows[t])
            rows[t].zero_()  # a pushed row's strength is d_t, whatever the pops left there
        for e in reversed(range(len(self.ends))):
            g = torch.mul(grad, keep[e], out=self.g)
            reach = torch.mul(g, take[e], out=self.h)
            torch.sum(reach, -1, out=self.grad_pop[e][t]).neg_()
            torch.sub(g, reach, out=grad)
            grad += self.sums.inclusive_of(reach, self.from_ends[e])
        return grad


def sum_ends(layout: Layout) -> list[End]:
    """For each end of ``layout`` (top first), the end from which ``BackwardSteps``'s sums
    over rows run, in the row order it keeps."""
    rev = reversed_rows(layout)
    return [_mirrored(end) if rev else end for end in map(_mirrored, layout.ends)]


def reversed_rows(layout: Layout) -> bool:
    """Whether ``BackwardSteps`` keeps the rows of ``layout`` reversed: for a stack or a
    queue, whose backward sums run from the high rows."""
    return layout.kind != "deque"


def in_backward_order(layout: Layout, x: Tensor) -> Tensor:
    """x (..., n) in the row order ``BackwardSteps`` keeps for ``layout`` (or back)."""
    return x.flip(-1) if reversed_rows(layout) else x


def reordered(layout: Layout, masks: Masks) -> Masks:
    """``masks`` in the row order ``BackwardSteps`` keeps for ``layout``."""
    parts = (masks.read_pos, masks.read_over, masks.pop_keep, masks.pop_take)
    return Masks(*(in_backward_order(layout, m) for m in parts))
