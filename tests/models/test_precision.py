"""Mixed precision: under torch.autocast every recurrent model runs forward and backward,
its memory and hand-written autograd nodes in float32, its parameters untouched."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor, nn

from memrnn.models import build_model
from memrnn.models.state import detach_state

V, OUT, B, T = 5, 3, 4, 12

MEMORY_MODELS = {
    "stack_lstm": {"hidden_size": 16, "embedding": 8, "memory_width": 8},
    "queue_lstm": {"hidden_size": 16, "embedding": 8, "memory_width": 8},
    "deque_lstm": {"hidden_size": 16, "embedding": 8, "memory_width": 8},
    "memory_rnn": {"hidden_size": 16, "memory_width": 8, "cell": "lstm"},
    "stack_rnn": {"hidden_size": 16, "stack_width": 4, "stack_depth": 8},
    "fast_weights": {"hidden_size": 16, "readout": 16},
}
OTHERS = {name: {"hidden_size": 16} for name in ("lstm", "deep_lstm", "irnn", "alstm", "gru")}


def _model(name: str, device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    options = {**MEMORY_MODELS, **OTHERS}[name]
    return build_model(name, V, OUT, **options).to(device)


def _tokens(device: str = "cpu") -> Tensor:
    return torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(1)).to(device)


def _check_mixed(name: str, device: str, dtype: torch.dtype) -> None:
    model = _model(name, device)
    x = _tokens(device)
    reference = model(x).detach()
    with torch.autocast(device, dtype=dtype):
        out = model(x)
    out.float().square().mean().backward()
    assert out.dtype == dtype  # the readout is a matrix product in the lower precision
    torch.testing.assert_close(out.float(), reference, rtol=0, atol=5e-2)
    for p in model.parameters():
        assert p.dtype == torch.float32
        assert p.grad is not None and p.grad.dtype == torch.float32
        assert bool(torch.isfinite(p.grad).all())


@pytest.mark.parametrize("name", [*MEMORY_MODELS, *OTHERS])
def test_bfloat16_autocast_on_the_cpu_runs_forward_and_backward(name: str) -> None:
    _check_mixed(name, "cpu", torch.bfloat16)


@pytest.mark.parametrize("name", MEMORY_MODELS)
def test_a_stream_under_autocast_continues_from_its_state(name: str) -> None:
    model = _model(name)
    x = _tokens()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        first, state = model.stream(x[:, :5])
        second, _ = model.stream(x[:, 5:], detach_state(state))
    second.float().sum().backward()
    both = torch.cat([first, second], dim=1).float()
    torch.testing.assert_close(both, model(x).detach(), rtol=0, atol=5e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", [*MEMORY_MODELS, *OTHERS])
def test_cuda_autocast_runs_forward_and_backward(name: str, dtype: torch.dtype) -> None:
    _check_mixed(name, "cuda", dtype)


@pytest.mark.parametrize("memory", ["stack", "deque"])
def test_the_per_step_path_under_autocast_keeps_the_memory_in_float32(memory: str) -> None:
    torch.manual_seed(0)
    model = build_model("memory_rnn", V, OUT, hidden_size=16, memory_width=8, memory=memory)
    x = _tokens()
    reference = model(x).detach()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out, state = model.stream(x, stepwise=True)
    out.float().sum().backward()
    assert state.memory.dtype == torch.float32
    torch.testing.assert_close(out.float(), reference, rtol=0, atol=5e-2)
