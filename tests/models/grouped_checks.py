"""What the tests of every grouped model class share: K members drawn from K seeds, their
inputs, a loss, the check that the group computes what its members compute alone, and a
model that cannot be grouped."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Literal

import torch
from torch import Tensor, nn

from memrnn.models import DeepLSTM
from memrnn.models.grouped import Grouped

K = 3


def dropping_deep_lstm() -> DeepLSTM:
    """A Deep LSTM with dropout between its layers: random numbers in its forward, so it
    cannot be grouped."""
    model = DeepLSTM(5, 6, hidden_size=8, embedding=4, layers=2)
    model.lstm.dropout = 0.5
    return model


def members(
    build: Callable[[], nn.Module],
    dtype: torch.dtype = torch.float32,
    scale: float = 1.0,
    noise: float = 0.0,
) -> list[nn.Module]:
    """K models from seeds 0 .. K-1, each weight times ``scale`` plus ``noise`` times a
    standard normal draw (larger weights spread gates over (0, 1) and reach deep)."""
    models = []
    for seed in range(K):
        torch.manual_seed(seed)
        model = build().to(dtype)
        if scale != 1.0 or noise:
            with torch.no_grad():
                for p in model.parameters():
                    p.mul_(scale)
                    if noise:
                        p.add_(noise * torch.randn_like(p))
        models.append(model)
    return models


def inputs(tokens: bool, batch: int, steps: int, dtype: torch.dtype, seed: int = 0) -> Tensor:
    """(K, B, T) ids of 5 symbols, or (K, B, T, 5) vectors."""
    gen = torch.Generator().manual_seed(seed)
    if tokens:
        return torch.randint(0, 5, (K, batch, steps), generator=gen)
    return torch.randn(K, batch, steps, 5, generator=gen, dtype=dtype)


def loss(logits: Tensor) -> Tensor:
    """A mean over each member's (B, T, O) logits whose gradient differs per step and per
    output, summed over the members."""
    b, t_len, o = logits.shape[-3:]
    weights = torch.linspace(-1, 1, t_len * o, dtype=logits.dtype).view(t_len, o)
    return (logits.square() + logits * weights).sum() / (b * t_len * o)


def check_against_members(
    models: list[nn.Module],
    x: Tensor,
    atol: float,
    gradients: Literal["present", "nonzero", "any"] = "present",
) -> Tensor:
    """The group of ``models`` gives each member's outputs on its slice of ``x``, and the
    gradient the summed losses hand each member's own leaves is that member's gradient
    alone (computed on a copy); the logits. ``gradients``: every parameter must get one
    ("present"); a parameter the loss does not reach gets none, alone and grouped alike,
    but every gradient must have a nonzero entry in some member, so that each comparison
    tests something ("nonzero"); or either ("any")."""
    copies = [copy.deepcopy(m) for m in models]
    grouped = Grouped(models)
    logits = grouped(x)
    alone = [m(x[k]) for k, m in enumerate(copies)]
    assert torch.isfinite(logits).all()
    torch.testing.assert_close(logits, torch.stack(alone), rtol=0, atol=atol)
    loss(logits).backward()
    for out in alone:  # sum_k loss_k: member k's gradient is that of its own loss
        loss(out).backward()
    for name in grouped.names:
        got = [m.get_parameter(name).grad for m in models]
        want = [m.get_parameter(name).grad for m in copies]
        if gradients == "present":
            assert all(g is not None for g in got + want), name
        assert [g is None for g in got] == [g is None for g in want], name
        pairs = [(g, w) for g, w in zip(got, want, strict=True) if g is not None]
        if gradients == "nonzero":
            assert any(bool(w.abs().amax() > 0) for _, w in pairs), f"{name}: all zeros"
        errors = [float((g - w).abs().amax()) for g, w in pairs]  # per member
        assert all(e <= atol for e in errors), f"{name}: {errors}"
    return logits
