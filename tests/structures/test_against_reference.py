"""The vectorised memories against the literal reference, forward and backward."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.structures import NeuralDeque
from memrnn.structures import reference as R
from tests.structures.helpers import (
    ONE_ENDED,
    REFERENCE,
    per_sequence,
    random_deque,
    random_one_ended,
    run_by_steps,
    run_deque_by_steps,
    stack_rows,
)

SIZES = [(1, 1), (1, 17), (3, 5), (3, 64)]  # (B, T); T > 16 makes the value buffer grow
TOL = 1e-10
GRAD_TOL = 1e-8


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize(("batch", "steps"), SIZES)
@pytest.mark.parametrize("kind", ["stack", "queue"])
def test_one_ended_forward_matches_reference(kind: str, batch: int, steps: int) -> None:
    inputs = random_one_ended(_gen(steps * 10 + batch), batch, steps, width=4)
    forward, _ = REFERENCE[kind]
    want = stack_rows([trace.reads for trace in per_sequence(forward, inputs)])  # type: ignore[attr-defined]
    memory = ONE_ENDED[kind]()
    assert (memory.run(*inputs) - want).abs().max() <= TOL
    assert (run_by_steps(memory, *inputs) - want).abs().max() <= TOL


@pytest.mark.parametrize(("batch", "steps"), SIZES)
def test_deque_forward_matches_reference(batch: int, steps: int) -> None:
    inputs = random_deque(_gen(steps * 10 + batch), batch, steps, width=3)
    traces = per_sequence(R.deque_forward, inputs)
    want_top = stack_rows([t.reads_top for t in traces])  # type: ignore[attr-defined]
    want_bot = stack_rows([t.reads_bot for t in traces])  # type: ignore[attr-defined]
    deque = NeuralDeque()
    for top, bot in (deque.run(*inputs), run_deque_by_steps(deque, *inputs)):
        assert (top - want_top).abs().max() <= TOL
        assert (bot - want_bot).abs().max() <= TOL


GRAD_SIZES = [(1, 3), (3, 20)]


@pytest.mark.parametrize("by_steps", [False, True], ids=["run", "step"])
@pytest.mark.parametrize(("batch", "steps"), GRAD_SIZES)
@pytest.mark.parametrize("kind", ["stack", "queue"])
def test_one_ended_autograd_matches_handwritten_backward(
    kind: str, batch: int, steps: int, by_steps: bool
) -> None:
    gen = _gen(1000 + steps)
    inputs = [x.requires_grad_() for x in random_one_ended(gen, batch, steps, width=3)]
    grad_reads = torch.randn(batch, steps, 3, generator=gen, dtype=torch.float64)
    memory = ONE_ENDED[kind]()
    reads = run_by_steps(memory, *inputs) if by_steps else memory.run(*inputs)
    got = torch.autograd.grad(reads, inputs, grad_reads)

    forward, backward = REFERENCE[kind]
    for b, trace in enumerate(per_sequence(forward, inputs)):
        want = backward(trace, grad_reads[b].numpy())  # type: ignore[arg-type]
        for name, g, w in zip(("values", "push", "pop"), got, want, strict=True):
            err = np.abs(g[b].numpy() - w).max()
            assert err <= GRAD_TOL, f"d loss / d {name}, sequence {b}: {err:g}"


@pytest.mark.parametrize("by_steps", [False, True], ids=["run", "step"])
@pytest.mark.parametrize(("batch", "steps"), GRAD_SIZES)
def test_deque_autograd_matches_handwritten_backward(
    batch: int, steps: int, by_steps: bool
) -> None:
    gen = _gen(2000 + steps)
    inputs = [x.requires_grad_() for x in random_deque(gen, batch, steps, width=3)]
    grad_top, grad_bot = (
        torch.randn(batch, steps, 3, generator=gen, dtype=torch.float64) for _ in range(2)
    )
    deque = NeuralDeque()
    top, bot = run_deque_by_steps(deque, *inputs) if by_steps else deque.run(*inputs)
    got = torch.autograd.grad((top, bot), inputs, (grad_top, grad_bot))
    for b, trace in enumerate(per_sequence(R.deque_forward, inputs)):
        want = R.deque_backward(trace, grad_top[b].numpy(), grad_bot[b].numpy())  # type: ignore[arg-type]
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            err = np.abs(g[b].numpy() - w).max()
            assert err <= GRAD_TOL, f"input {k}, sequence {b}: {err:g}"


def test_reference_backward_matches_finite_differences() -> None:
    """The oracle checked on its own terms, independently of PyTorch."""
    rng = np.random.default_rng(0)
    steps, width, eps = 6, 2, 1e-6
    values, push, pop = (
        rng.normal(size=(steps, width)),
        rng.uniform(size=steps),
        rng.uniform(size=steps),
    )
    grad_reads = rng.normal(size=(steps, width))
    for forward, backward in REFERENCE.values():
        inputs = [values, push, pop]
        analytic = backward(forward(*inputs), grad_reads)
        for k, x in enumerate(inputs):
            numeric = np.zeros_like(x)
            for idx in np.ndindex(x.shape):
                up = [a.copy() for a in inputs]
                down = [a.copy() for a in inputs]
                up[k][idx] += eps
                down[k][idx] -= eps
                diff = forward(*up).reads - forward(*down).reads
                numeric[idx] = (diff * grad_reads).sum() / (2 * eps)
            np.testing.assert_allclose(analytic[k], numeric, atol=1e-7)


@pytest.mark.parametrize("by_steps", [False, True], ids=["run", "step"])
@pytest.mark.parametrize("kind", ["stack", "queue", "deque"])
def test_gradcheck(kind: str, by_steps: bool) -> None:
    gen = _gen(7)
    if kind == "deque":
        inputs = [x.requires_grad_() for x in random_deque(gen, 2, 5, width=2)]
        deque = NeuralDeque()

        def fn(*xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return run_deque_by_steps(deque, *xs) if by_steps else deque.run(*xs)
    else:
        inputs = [x.requires_grad_() for x in random_one_ended(gen, 2, 5, width=2)]
        memory = ONE_ENDED[kind]()

        def fn(*xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return (run_by_steps(memory, *xs) if by_steps else memory.run(*xs),)

    assert torch.autograd.gradcheck(fn, tuple(inputs))
