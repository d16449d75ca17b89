"""Every registered model in every floating-point dtype and under autocast, and the
memories under autocast: forward and backward run, the outputs and gradients come in the
dtype asked for (the memories keep float32 under autocast), and the numbers agree with
float32 to the lower dtype's precision. The models come from the registry, so a model
registered later is checked too."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor, nn

from memrnn.models import build_model, model_names
from memrnn.models.registry import registered_model
from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack

V, OUT, B, T = 6, 4, 3, 7
# Closeness to float32 of a whole network's outputs: a few units in the lower dtype's
# last place, over T steps of a recurrence.
TOLERANCE = {torch.float64: 1e-5, torch.bfloat16: 0.1, torch.float16: 2e-2}


def _model(name: str) -> nn.Module:
    torch.manual_seed(0)
    return build_model(name, V, OUT).eval()


def _inputs(name: str, dtype: torch.dtype = torch.float32) -> Tensor:
    generator = torch.Generator().manual_seed(1)
    if "tokens" in registered_model(name).accepts:
        return torch.randint(0, V, (B, T), generator=generator)
    return torch.randn(B, T, V, generator=generator).to(dtype)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float64], ids=str)
@pytest.mark.parametrize("name", model_names())
def test_each_model_runs_in_each_float_dtype(name: str, dtype: torch.dtype) -> None:
    reference = _model(name)(_inputs(name)).detach()
    model = _model(name).to(dtype)
    out = model(_inputs(name, dtype))
    assert out.dtype == dtype
    torch.testing.assert_close(out.double(), reference.double(), rtol=0, atol=TOLERANCE[dtype])
    out.double().square().sum().backward()
    trained = [p for p in model.parameters() if p.requires_grad]
    assert trained
    for p in trained:
        assert p.dtype == dtype
        if p.grad is not None:  # a parameter the inputs never reach has none
            assert p.grad.dtype == dtype and bool(torch.isfinite(p.grad).all())
    assert any(p.grad is not None for p in trained)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("name", model_names())
def test_each_model_runs_under_cpu_autocast(name: str, dtype: torch.dtype) -> None:
    model = _model(name)
    reference = model(_inputs(name)).detach()
    with torch.autocast("cpu", dtype=dtype):
        out = model(_inputs(name))
    torch.testing.assert_close(out.float(), reference, rtol=0, atol=TOLERANCE[dtype])
    out.float().square().sum().backward()
    for p in model.parameters():
        assert p.dtype == torch.float32
        if p.grad is not None:
            assert p.grad.dtype == torch.float32 and bool(torch.isfinite(p.grad).all())
    assert any(p.grad is not None for p in model.parameters())


RECURRENT = [name for name in model_names() if hasattr(_model(name), "stream")]


@pytest.mark.parametrize("name", RECURRENT)
def test_a_bfloat16_stream_continues_from_its_state(name: str) -> None:
    model = _model(name).to(torch.bfloat16)
    x = _inputs(name, torch.bfloat16)
    first, state = model.stream(x[:, :3])
    second, _ = model.stream(x[:, 3:], state)
    assert first.dtype == second.dtype == torch.bfloat16
    both = torch.cat([first, second], dim=1).float()
    torch.testing.assert_close(both, model(x).float(), rtol=0, atol=1e-2)


def _gates(dtype: torch.dtype, *shape: int) -> list[Tensor]:
    generator = torch.Generator().manual_seed(2)
    return [torch.rand(*shape, generator=generator).to(dtype).requires_grad_() for _ in "pu"]


@pytest.mark.parametrize("memory", [NeuralStack, NeuralQueue], ids=lambda m: m.__name__)
def test_a_one_ended_memory_steps_on_autocast_inputs(memory: type[NeuralStack]) -> None:
    m = memory()
    value = torch.randn(B, 5, generator=torch.Generator().manual_seed(3))
    push, pop = _gates(torch.float32, B)
    reference, _ = m.step(m.initial_state(B, 5), value, push, pop)
    low = value.bfloat16().requires_grad_()
    push_low, pop_low = (g.detach().bfloat16().requires_grad_() for g in (push, pop))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        read, state = m.step(m.initial_state(B, 5), low, push_low, pop_low)
        read.sum().backward()
    assert read.dtype == state.dtype == torch.float32  # the memory keeps float32
    torch.testing.assert_close(read, reference.detach(), rtol=0, atol=2e-2)
    assert low.grad is not None and low.grad.dtype == torch.bfloat16


def test_the_deque_steps_on_autocast_inputs() -> None:
    m = NeuralDeque()
    generator = torch.Generator().manual_seed(3)
    values = [torch.randn(B, 5, generator=generator) for _ in "tb"]
    gates = [*_gates(torch.float32, B), *_gates(torch.float32, B)]
    (reference, _), _ = m.step(m.initial_state(B, 5), *values, *gates)
    low = [x.detach().bfloat16().requires_grad_() for x in (*values, *gates)]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        (top, bottom), state = m.step(m.initial_state(B, 5), *low)
        (top + bottom).sum().backward()
    assert top.dtype == state.dtype == torch.float32
    torch.testing.assert_close(top, reference.detach(), rtol=0, atol=2e-2)
    assert all(x.grad is not None and x.grad.dtype == torch.bfloat16 for x in low)


@pytest.mark.parametrize(
    "memory", [NeuralStack, NeuralQueue, NeuralDeque], ids=lambda m: m.__name__
)
def test_a_memory_runs_a_sequence_of_autocast_inputs(memory: type[NeuralStack]) -> None:
    generator = torch.Generator().manual_seed(4)
    ends = 2 if memory is NeuralDeque else 1
    values = [torch.randn(B, T, 5, generator=generator) for _ in range(ends)]
    gates = [torch.rand(B, T, generator=generator) for _ in range(2 * ends)]  # pushes, pops

    def reads(*inputs: Tensor) -> tuple[Tensor, ...]:
        out = memory().run(*inputs)
        return out if isinstance(out, tuple) else (out,)

    reference = reads(*values, *gates)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low = reads(*(x.bfloat16() for x in (*values, *gates)))
    for got, want in zip(low, reference, strict=True):
        assert got.dtype == torch.float32
        torch.testing.assert_close(got, want, rtol=0, atol=5e-2)
