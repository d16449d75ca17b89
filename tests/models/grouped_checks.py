"""What the tests of every grouped model class share: K members drawn from K seeds, their
inputs, a loss, the check that the group computes what its members compute alone, and a
model that cannot be grouped."""

from __future__ import annotations

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
    gradient of the summed losses is, slice by slice, each member's own; the logits.
    ``gradients``: every parameter must get one ("present"); a parameter the loss does
    not reach gets none, alone and grouped alike, but every stacked gradient must have a
    nonzero entry, so that each comparison tests something ("nonzero"); or either
    ("any")."""
    grouped = Grouped(models)
    logits = grouped(x)
    alone = [m(x[k]) for k, m in enumerate(models)]
    assert torch.isfinite(logits).all()
    torch.testing.assert_close(logits, torch.stack(alone), rtol=0, atol=atol)
    loss(logits).backward()
    for out in alone:  # sum_k loss_k: member k's gradient is that of its own loss
        loss(out).backward()
    each = zip(*(m.parameters() for m in models), strict=True)
    for name, stacked, own in zip(grouped.names, grouped.parameters(), each, strict=True):
        if gradients == "present":
            assert stacked.grad is not None and all(p.grad is not None for p in own), name
        grad = torch.zeros_like(stacked) if stacked.grad is None else stacked.grad
        own_grads = torch.stack([torch.zeros_like(p) if p.grad is None else p.grad for p in own])
        if gradients == "nonzero":
            assert bool(own_grads.abs().amax() > 0), f"{name}: all zeros"
        errors = (grad - own_grads).flatten(1).abs().amax(1)  # per member
        assert bool((errors <= atol).all()), f"{name}: {errors.tolist()}"
    return logits
