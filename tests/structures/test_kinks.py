"""Gradients at the kinks: gates of exactly 0 and 1, where max and min are not smooth.

Grefenstette et al. (2015), footnote 1, take the derivative of the left argument there.
``run`` (one autograd node, hand-written backward), ``step`` (autograd through the
equations as written) and the NumPy reference (Appendix A term by term) must agree on
values and gradients whatever the gates, including exact ties.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import Tensor

from memrnn.structures import NeuralDeque, NeuralStack
from memrnn.structures import reference as R
from tests.structures.helpers import (
    ONE_ENDED,
    REFERENCE,
    per_sequence,
    run_by_steps,
    run_deque_by_steps,
    stack_rows,
)

TOL = 1e-9
F64 = torch.float64


def _gates(gen: torch.Generator, shape: tuple[int, ...], exact: bool) -> Tensor:
    """Gates from {0, 0.5, 1} (sums land exactly on 1 and on the pop) or from (0, 1)."""
    if exact:
        return torch.randint(0, 3, shape, generator=gen).to(F64) / 2
    return torch.rand(shape, generator=gen, dtype=F64)


def _inputs(kind: str, seed: int, exact: bool, batch: int = 4, steps: int = 9) -> list[Tensor]:
    gen = torch.Generator().manual_seed(seed)
    ends = 2 if kind == "deque" else 1
    values = [torch.randn(batch, steps, 3, generator=gen, dtype=F64) for _ in range(ends)]
    gates = [_gates(gen, (batch, steps), exact) for _ in range(2 * ends)]
    return [x.requires_grad_() for x in values + gates]


def _reads_and_grads(kind: str, inputs: list[Tensor], by_steps: bool,
                     grads: tuple[Tensor, ...]) -> tuple[list[Tensor], list[Tensor]]:  # fmt: skip
    if kind == "deque":
        deque = NeuralDeque()
        reads = list(run_deque_by_steps(deque, *inputs) if by_steps else deque.run(*inputs))
    else:
        memory = ONE_ENDED[kind]()
        reads = [run_by_steps(memory, *inputs) if by_steps else memory.run(*inputs)]
    return reads, list(torch.autograd.grad(reads, inputs, grads))


def _reference(kind: str, inputs: list[Tensor], grads: tuple[Tensor, ...]
               ) -> tuple[list[Tensor], list[Tensor]]:  # fmt: skip
    if kind == "deque":
        forward, backward = R.deque_forward, R.deque_backward
    else:
        forward, backward = REFERENCE[kind]
    traces = per_sequence(forward, inputs)
    if kind == "deque":
        reads = [stack_rows([t.reads_top for t in traces]),  # type: ignore[attr-defined]
                 stack_rows([t.reads_bot for t in traces])]  # type: ignore[attr-defined]  # fmt: skip
    else:
        reads = [stack_rows([t.reads for t in traces])]  # type: ignore[attr-defined]
    per_b = [
        backward(trace, *(g[b].numpy() for g in grads))  # type: ignore[operator]
        for b, trace in enumerate(traces)
    ]
    return reads, [stack_rows([np.asarray(p[k]) for p in per_b]) for k in range(len(inputs))]


@pytest.mark.parametrize("exact", [True, False], ids=["gates-0-half-1", "gates-uniform"])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["stack", "queue", "deque"])
def test_run_step_and_reference_agree(kind: str, seed: int, exact: bool) -> None:
    inputs = _inputs(kind, seed, exact)
    gen = torch.Generator().manual_seed(100 + seed)
    ends = 2 if kind == "deque" else 1
    grads = tuple(torch.randn(inputs[0].shape, generator=gen, dtype=F64) for _ in range(ends))
    want_reads, want_grads = _reference(kind, inputs, grads)
    for by_steps in (False, True):
        path = "step" if by_steps else "run"
        reads, got = _reads_and_grads(kind, inputs, by_steps, grads)
        for r, w in zip(reads, want_reads, strict=True):
            assert (r - w).abs().max() <= TOL, f"{path}: reads"
        for k, (g, w) in enumerate(zip(got, want_grads, strict=True)):
            err = (g - w).abs().max()
            assert err <= TOL, f"{path}: gradient of input {k}, error {err:g}"


def test_push_of_exactly_zero_still_gets_its_read_gradient() -> None:
    """One step, d = 0, v = 1: r = min(d, 1) v, whose slope in d is v (Eqs. 14, 18)."""
    values = torch.ones(1, 1, 1, dtype=F64)
    push = torch.zeros(1, 1, dtype=F64, requires_grad=True)
    read = NeuralStack().run(values, push, torch.zeros(1, 1, dtype=F64))
    (grad,) = torch.autograd.grad(read.sum(), push)
    assert grad.item() == 1.0


@pytest.mark.parametrize("kind", ["stack", "queue"])
def test_row_under_a_full_row(kind: str) -> None:
    """A push of exactly 1 over a row of strength s: the row's read weight is
    min(s, max(0, 1 - 1)) = 0, flat in everything (footnote 1 at 1 - A = 0), whatever
    rounding fl(1 + s) - 1 would leave."""
    strengths = torch.linspace(0.01, 0.99, 99, dtype=F64)
    batch = len(strengths)
    values = torch.randn(batch, 2, 2, dtype=F64, generator=torch.Generator().manual_seed(0))
    push = torch.stack([strengths, torch.ones(batch, dtype=F64)], dim=1).requires_grad_()
    pop = torch.zeros(batch, 2, dtype=F64)
    memory = ONE_ENDED[kind]()
    grads = []
    for reads in (memory.run(values, push, pop), run_by_steps(memory, values, push, pop)):
        (grad,) = torch.autograd.grad(reads[:, 1].sum(), push)
        grads.append(grad)
    torch.testing.assert_close(grads[0], grads[1], rtol=0, atol=0)
    # The stack reads only its new top row; the queue reads only the old bottom row
    # (limited by its own strength, the new row gets 1 - s).
    if kind == "stack":
        assert (grads[0][:, 0] == 0).all()
        torch.testing.assert_close(grads[0][:, 1], values[:, 1].sum(-1))
    else:
        torch.testing.assert_close(grads[0][:, 0], (values[:, 0] - values[:, 1]).sum(-1))
