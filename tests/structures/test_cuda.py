"""The memories on a CUDA device agree with the CPU; skipped where no GPU is present."""

from __future__ import annotations

import pytest
import torch

from memrnn.structures import NeuralDeque, NeuralStack
from tests.structures.helpers import (
    ONE_ENDED,
    random_deque,
    random_one_ended,
    run_by_steps,
    run_deque_by_steps,
)

pytestmark = pytest.mark.gpu
CUDA = torch.device("cuda")


def _cuda(xs: list[torch.Tensor] | tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    return [x.detach().to(CUDA).requires_grad_(x.requires_grad) for x in xs]


@pytest.mark.parametrize("kind", ["stack", "queue"])
def test_one_ended_forward_and_backward_match_cpu(kind: str) -> None:
    inputs = [
        x.requires_grad_() for x in random_one_ended(torch.Generator().manual_seed(0), 3, 40, 5)
    ]
    grad = torch.randn(3, 40, 5, dtype=torch.float64)
    memory = ONE_ENDED[kind]()
    for fn in (memory.run, lambda *xs: run_by_steps(memory, *xs)):
        want = fn(*inputs)
        want_grads = torch.autograd.grad(want, inputs, grad)
        cuda_inputs = _cuda(inputs)
        got = fn(*cuda_inputs)
        assert got.device.type == "cuda"
        got_grads = torch.autograd.grad(got, cuda_inputs, grad.to(CUDA))
        assert (got.cpu() - want).abs().max() <= 1e-10
        for g, w in zip(got_grads, want_grads, strict=True):
            assert (g.cpu() - w).abs().max() <= 1e-8


def test_deque_matches_cpu() -> None:
    inputs = random_deque(torch.Generator().manual_seed(1), 2, 30, 4)
    deque = NeuralDeque()
    for fn in (deque.run, lambda *xs: run_deque_by_steps(deque, *xs)):
        for got, want in zip(fn(*_cuda(inputs)), fn(*inputs), strict=True):
            assert (got.cpu() - want).abs().max() <= 1e-10


def test_float32_on_cuda_tracks_float64_over_2048_steps() -> None:
    gen = torch.Generator().manual_seed(2)
    values = torch.randn(2, 2048, 4, generator=gen, dtype=torch.float64)
    push = 0.5 + 0.5 * torch.rand(2, 2048, generator=gen, dtype=torch.float64)
    pop = 0.3 * torch.rand(2, 2048, generator=gen, dtype=torch.float64)
    stack = NeuralStack()
    exact = stack.run(values, push, pop)
    approx = stack.run(*(x.float().to(CUDA) for x in (values, push, pop)))
    assert (approx.double().cpu() - exact).abs().max() <= 1e-4


def test_device_mix_is_rejected() -> None:
    stack = NeuralStack()
    state = stack.initial_state(2, 3, device=CUDA)
    with pytest.raises(ValueError, match="value: on device cpu but the memory is on cuda:0"):
        stack.step(
            state, torch.zeros(2, 3), torch.zeros(2, device=CUDA), torch.zeros(2, device=CUDA)
        )
    with pytest.raises(ValueError, match="pop: on device cuda:0"):
        stack.run(torch.zeros(2, 4, 3), torch.zeros(2, 4), torch.zeros(2, 4, device=CUDA))
