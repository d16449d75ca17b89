"""Whole-sequence reads of a memory whose values and gates are all given up front.

``LeanRun`` is what the memories' ``run`` methods call. Its forward steps the strengths
(``memrnn.structures.layout``) and keeps them and the read weights, O(n) numbers per step;
all T reads are then one batched product with the value rows, each written once. Its
backward is one batched product for the weights' and the rows' gradients, then Appendix
A's recursion on the strengths alone. Plain autograd over the same loop would keep a
dozen (B, n) intermediates per step, and a version that re-stacks the value matrix every
step keeps O(n m) numbers per step (``benchmarks/train_step.py`` measures both).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torch.autograd.function import FunctionCtx, once_differentiable

from memrnn.structures.layout import Layout, backward_masks
from memrnn.structures.precision import full_precision_backward, full_precision_forward
from memrnn.structures.steps import BackwardSteps, ForwardSteps, in_backward_order, reordered


class LeanRun(torch.autograd.Function):
    """Reads (B, T, E, m) of a memory over whole sequences.

    Inputs:
        rows: (B, n, m) the value rows in the layout's order.
        push, pop: (B, T, E), one column per end (top first).
        layout: the memory's ``Layout``.
    """

    @staticmethod
    @full_precision_forward
    def forward(
        ctx: FunctionCtx, rows: Tensor, push: Tensor, pop: Tensor, layout: Layout
    ) -> Tensor:
        batch, steps, ends = push.shape
        strengths = rows.new_zeros(steps + 1, batch, layout.rows)  # s_{t-1} at index t
        weights = rows.new_empty(steps, ends, batch, layout.rows)
        step = ForwardSteps(layout, strengths, weights)
        pushes = [x.unbind(1) for x in push.unbind(2)]  # per end, per step: (B,)
        pops = [x.unbind(1) for x in pop.split(1, dim=2)]  # (B, 1)
        for t in range(steps):
            step(t, [x[t] for x in pushes], [x[t] for x in pops])
        ctx.layout = layout  # type: ignore[attr-defined]
        ctx.save_for_backward(rows, pop, strengths, weights)
        by_batch = weights.permute(2, 0, 1, 3).flatten(1, 2)  # (B, T E, n)
        return torch.bmm(by_batch, rows).unflatten(1, (steps, ends))

    @staticmethod
    @full_precision_backward
    @once_differentiable
    def backward(
        ctx: Any, grad_reads: Tensor
    ) -> tuple[Tensor | None, Tensor | None, Tensor | None, None]:
        layout: Layout = ctx.layout
        rows, pop, strengths, weights = ctx.saved_tensors
        steps, ends, batch, n = weights.shape
        grad_flat = grad_reads.flatten(1, 2)  # (B, T E, m)
        grad_rows = None
        if ctx.needs_input_grad[0]:
            by_batch = weights.permute(2, 0, 1, 3).flatten(1, 2)
            grad_rows = torch.bmm(by_batch.transpose(1, 2), grad_flat)
        grad_weights = torch.bmm(grad_flat, rows.transpose(1, 2))  # (B, T E, n)
        grad_weights = grad_weights.unflatten(1, (steps, ends)).permute(1, 2, 0, 3)
        by_step = in_backward_order(layout, grad_weights).unbind(0)
        masks = backward_masks(layout, strengths[:-1], strengths[1:], pop.transpose(0, 1))
        grad_push = grad_reads.new_empty(steps, batch, ends)
        grad_pop = grad_reads.new_empty(steps, batch, ends)
        step = BackwardSteps(layout, reordered(layout, masks), grad_reads.new_zeros(batch, n),
                             grad_push, grad_pop)  # fmt: skip
        for t in reversed(range(steps)):
            step(t, by_step[t])
        return grad_rows, grad_push.transpose(0, 1), grad_pop.transpose(0, 1), None


def lean_reads(layout: Layout, rows: Tensor, push: Tensor, pop: Tensor) -> Tensor:
    """``LeanRun`` applied: reads (B, T, E, m)."""
    out: Tensor = LeanRun.apply(rows, push, pop, layout)
    return out
