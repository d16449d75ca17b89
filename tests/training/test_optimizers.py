"""A run's optimiser (``memrnn.training.make_optimizer``) takes torch's
multi-tensor path on a CPU too, and moves the weights exactly as torch's per-tensor loop."""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

from memrnn.training.optimizers import OPTIMIZERS, make_optimizer


@pytest.mark.parametrize("name", ["adam", "adamw", "rmsprop", "sgd"])
@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
def test_the_multi_tensor_path_moves_as_the_per_tensor_loop(name: str, weight_decay: float) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
    other = copy.deepcopy(model)
    ours = make_optimizer(name, model.parameters(), 0.01, weight_decay)
    loop = OPTIMIZERS[name](other.parameters(), lr=0.01, weight_decay=weight_decay,
                             foreach=False)  # fmt: skip
    assert ours.defaults["foreach"] is True
    gen = torch.Generator().manual_seed(1)
    for _ in range(40):
        x, y = torch.randn(8, 5, generator=gen), torch.randn(8, 3, generator=gen)
        for net, optimizer in ((model, ours), (other, loop)):
            optimizer.zero_grad()
            ((net(x) - y) ** 2).mean().backward()
            optimizer.step()
    for a, b in zip(model.parameters(), other.parameters(), strict=True):
        assert torch.equal(a, b)


def test_an_unknown_optimizer_is_named() -> None:
    with pytest.raises(ValueError, match="optimizer: expected one of adam, adamw, rmsprop, sgd"):
        make_optimizer("lbfgs", nn.Linear(2, 2).parameters(), 0.1)
