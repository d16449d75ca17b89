"""The memories' hand-written autograd nodes under torch.autocast run in full precision;
outside it they are unchanged."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch import Tensor

from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack
from memrnn.structures.precision import full_precision_backward, full_precision_forward


class _Seen(torch.autograd.Function):
    """x @ w, recording the dtypes and the autocast state its forward and backward saw."""

    seen: dict[str, Any] = {}  # noqa: RUF012

    @staticmethod
    @full_precision_forward
    def forward(ctx: Any, x: Tensor, w: Tensor) -> Tensor:
        _Seen.seen["forward"] = (x.dtype, w.dtype, torch.is_autocast_enabled("cpu"))
        ctx.save_for_backward(x, w)
        return x @ w

    @staticmethod
    @full_precision_backward
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        x, w = ctx.saved_tensors
        _Seen.seen["backward"] = (grad.dtype, torch.is_autocast_enabled("cpu"))
        return grad @ w.T, x.T @ grad


def test_under_autocast_inputs_become_float32_and_autocast_is_off() -> None:
    x = torch.randn(3, 4, dtype=torch.bfloat16, requires_grad=True)
    w = torch.randn(4, 2, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = _Seen.apply(x, w)
        out.sum().backward()  # a backward called inside autocast runs without it too
    assert _Seen.seen["forward"] == (torch.float32, torch.float32, False)
    assert _Seen.seen["backward"] == (torch.float32, False)
    assert out.dtype == torch.float32
    assert x.grad is not None and x.grad.dtype == torch.bfloat16  # autograd casts it back
    assert torch.is_autocast_enabled("cpu") is False


def test_outside_autocast_nothing_is_cast() -> None:
    x = torch.randn(3, 4, dtype=torch.bfloat16)
    w = torch.randn(4, 2, dtype=torch.bfloat16)
    assert _Seen.apply(x, w).dtype == torch.bfloat16
    assert _Seen.seen["forward"] == (torch.bfloat16, torch.bfloat16, False)


def test_float64_stays_float64_under_autocast() -> None:
    x = torch.randn(3, 4, dtype=torch.float64)
    w = torch.randn(4, 2, dtype=torch.float64)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert _Seen.apply(x, w).dtype == torch.float64


def _gates(gen: torch.Generator, steps: int) -> tuple[Tensor, Tensor]:
    return torch.rand(2, steps, generator=gen), torch.rand(2, steps, generator=gen)


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
def test_a_whole_run_and_steps_under_autocast_match_float32(memory: NeuralStack) -> None:
    gen = torch.Generator().manual_seed(0)
    values = torch.randn(2, 9, 3, generator=gen, requires_grad=True)
    push, pop = _gates(gen, 9)
    reference = memory.run(values, push, pop)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        reads = memory.run(values, push, pop)
        state = memory.initial_state(2, 3)
        stepped = []
        for t in range(9):
            read, state = memory.step(state, values[:, t], push[:, t], pop[:, t])
            stepped.append(read)
    (reads.sum() + torch.stack(stepped, 1).float().sum()).backward()
    assert reads.dtype == torch.float32
    torch.testing.assert_close(reads, reference)
    torch.testing.assert_close(torch.stack(stepped, 1).float(), reference, rtol=0, atol=3e-2)
    assert values.grad is not None and bool(torch.isfinite(values.grad).all())


def test_a_deque_run_under_autocast_matches_float32() -> None:
    gen = torch.Generator().manual_seed(1)
    deque = NeuralDeque()
    values = [torch.randn(2, 6, 3, generator=gen) for _ in range(2)]
    gates = [torch.rand(2, 6, generator=gen) for _ in range(4)]
    reference = deque.run(*values, *gates)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        reads = deque.run(*values, *gates)
    for a, b in zip(reads, reference, strict=True):
        torch.testing.assert_close(a, b)
