"""The whole-sequence memory steps (memrnn.structures.steps) against the paper's
arithmetic written plainly, step by step (layout.py's formulas): the same numbers, bit
for bit, in every layout, forward and backward, with the rows reversed or not."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from memrnn.structures.layout import Layout, Masks, backward_masks, beyond, inclusive
from memrnn.structures.steps import (
    BackwardSteps,
    ForwardSteps,
    in_backward_order,
    reordered,
    rows_by_step,
)

KINDS = ["stack", "queue", "deque"]


def _other(end: str) -> str:
    return "high" if end == "low" else "low"


def plain_forward(layout: Layout, s: Tensor, t: int, push: Tensor, pop: Tensor
                  ) -> tuple[Tensor, Tensor]:  # fmt: skip
    """Eqs. (2)-(11) on fixed-size strengths: s_t and the read weights (E, B, n)."""
    for e, end in enumerate(layout.ends):
        s = torch.relu(s - torch.relu(pop[:, e : e + 1] - beyond(s, end)))  # type: ignore[arg-type]
    s = s.clone()
    for e, row in enumerate(layout.push_rows(t)):
        s[:, row] = push[:, e]
    weights = [torch.minimum(s, torch.relu(1 - beyond(s, end))) for end in layout.ends]  # type: ignore[arg-type]
    return s, torch.stack(weights)


def plain_backward(layout: Layout, masks: Masks, t: int, grad: Tensor, grad_w: Tensor
                   ) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """Appendix A's step t in the rows' own order: dL/ds_{t-1}, dL/dpush, dL/dpop."""
    grad = grad.clone()
    for e, end in enumerate(layout.ends):
        g = grad_w[e] * masks.read_pos[t, e]
        grad = grad + g
        grad = grad - inclusive(g * masks.read_over[t, e], _other(end))  # type: ignore[arg-type]
    d_push = torch.stack([grad[:, row] for row in layout.push_rows(t)], dim=1)
    for row in layout.push_rows(t):
        grad[:, row] = 0
    d_pop = torch.zeros_like(d_push)
    for e in reversed(range(len(layout.ends))):
        g = grad * masks.pop_keep[t, e]
        reach = g * masks.pop_take[t, e]
        d_pop[:, e] = -reach.sum(-1)
        grad = g - reach + inclusive(reach, _other(layout.ends[e]))  # type: ignore[arg-type]
    return grad, d_push, d_pop


def test_rows_by_step_is_the_pushed_row_of_each_step() -> None:
    x = torch.arange(5 * 3 * 7.0).view(5, 3, 7)
    for first, step in [(0, 1), (6, -1), (2, 1)]:
        view = rows_by_step(x, first, step)
        for t in range(5):
            assert torch.equal(view[t], x[t, :, first + step * t])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("start", [0, 2])
def test_forward_and_backward_steps_are_the_plain_arithmetic(kind: str, start: int) -> None:
    gen = torch.Generator().manual_seed(0)
    layout = Layout(kind, 9, start)  # type: ignore[arg-type]
    b, steps, n, e = 4, layout.steps, layout.rows, len(layout.ends)
    # gates of exactly 0 and 1 too: the kinks
    push = torch.rand(steps, b, e, generator=gen).mul(1.4).sub(0.2).clamp(0, 1)
    pop = torch.rand(steps, b, e, generator=gen).mul(1.4).sub(0.2).clamp(0, 1)
    strengths = torch.zeros(steps + 1, b, n)
    lo, hi = layout.carried
    strengths[0, :, lo:hi] = torch.rand(b, hi - lo, generator=gen)
    weights = torch.empty(steps, e, b, n)
    forward = ForwardSteps(layout, strengths, weights)
    s = strengths[0].clone()
    for t in range(steps):
        forward(t, list(push[t].unbind(1)), list(pop[t].split(1, dim=1)))
        s, w = plain_forward(layout, s, t, push[t], pop[t])
        assert torch.equal(strengths[t + 1], s)
        assert torch.equal(weights[t], w)

    masks = backward_masks(layout, strengths[:-1], strengths[1:], pop)
    grad_w = torch.randn(steps, e, b, n, generator=gen)
    d_push, d_pop = torch.empty(steps, b, e), torch.empty(steps, b, e)
    grad = torch.randn(b, n, generator=gen)
    start = in_backward_order(layout, grad.clone())  # the steps overwrite it
    backward = BackwardSteps(layout, reordered(layout, masks), start,
                             d_push, d_pop)  # fmt: skip
    for t in reversed(range(steps)):
        kept = backward(t, in_backward_order(layout, grad_w[t]))
        grad, want_push, want_pop = plain_backward(layout, masks, t, grad, grad_w[t])
        assert torch.equal(in_backward_order(layout, kept), grad)
        assert torch.equal(d_push[t], want_push)
        assert torch.equal(d_pop[t], want_pop)
