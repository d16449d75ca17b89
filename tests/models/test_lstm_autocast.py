"""nn.LSTM under CPU autocast: torch's own where this CPU has it, float32 where not."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from memrnn.models import lstm_autocast
from memrnn.models.lstm_autocast import lowered_lstm_runs, run_lstm
from memrnn.models.lstm_lm import LSTMLanguageModel


def _lstm() -> nn.LSTM:
    torch.manual_seed(0)
    return nn.LSTM(3, 5, num_layers=2, batch_first=True)


def _inputs() -> torch.Tensor:
    return torch.randn(4, 7, 3, generator=torch.Generator().manual_seed(1))


def _state() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(2)
    return torch.randn(2, 4, 5, generator=g), torch.randn(2, 4, 5, generator=g)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_the_probe_says_what_torch_does_on_this_cpu(dtype: torch.dtype) -> None:
    lstm = _lstm()  # parameters needing gradients: the training primitive
    try:
        with torch.autocast("cpu", dtype=dtype):
            lstm(_inputs())
        runs = True
    except RuntimeError as error:
        assert "primitive descriptor" in str(error)
        runs = False
    assert lowered_lstm_runs(dtype) is runs


@pytest.mark.parametrize("with_state", [False, True])
def test_without_a_lower_precision_lstm_it_runs_in_float32(
    monkeypatch: pytest.MonkeyPatch, with_state: bool
) -> None:
    monkeypatch.setattr(lstm_autocast, "lowered_lstm_runs", lambda dtype: False)
    lstm, x = _lstm(), _inputs().requires_grad_()
    state = _state() if with_state else None
    expected, _ = lstm(x, state)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out, (h_n, c_n) = run_lstm(lstm, x.bfloat16(), state)
    assert out.dtype == h_n.dtype == c_n.dtype == torch.float32
    # the same float32 LSTM, on the inputs rounded to bfloat16
    rounded, _ = lstm(x.bfloat16().float(), state)
    assert torch.equal(out, rounded)
    torch.testing.assert_close(out, expected, rtol=0, atol=2e-2)
    out.sum().backward()
    assert x.grad is not None and x.grad.dtype == torch.float32
    assert all(p.grad is not None and p.grad.dtype == torch.float32 for p in lstm.parameters())


def test_with_a_lower_precision_lstm_or_outside_autocast_it_is_the_lstm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lstm, x, state = _lstm(), _inputs(), _state()
    out, (h, c) = run_lstm(lstm, x, state)
    expected, (h_e, c_e) = lstm(x, state)
    assert torch.equal(out, expected) and torch.equal(h, h_e) and torch.equal(c, c_e)
    calls: list[torch.Tensor] = []

    def forward(inputs: torch.Tensor, hx: object = None) -> tuple[torch.Tensor, object]:
        calls.append(inputs)
        return inputs, hx

    monkeypatch.setattr(lstm_autocast, "lowered_lstm_runs", lambda dtype: True)
    monkeypatch.setattr(lstm, "forward", forward)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        run_lstm(lstm, x, state)
    assert len(calls) == 1 and calls[0] is x  # handed to torch as it came


def test_the_language_model_runs_under_cpu_autocast() -> None:
    torch.manual_seed(0)
    model = LSTMLanguageModel(5, 6, 8)
    tokens = torch.randint(0, 5, (3, 9), generator=torch.Generator().manual_seed(1))
    reference = model(tokens).detach()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(tokens)
    out.float().sum().backward()
    torch.testing.assert_close(out.float(), reference, rtol=0, atol=1e-1)
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())
