"""RMSProp over stacked parameters: each member moves as torch.optim.RMSprop moves it
alone (float32 and its state's round trip are tested with Adam's, in test_stacked_adam)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from memrnn.training import StackedAdam, StackedRMSprop
from memrnn.training.stacked import member_optimizer, stacked_optimizer
from tests.training.test_stacked_adam import LRS, _alone, _grads, _stacked


def _step(stacked: list[nn.Parameter], ours: StackedRMSprop, gen: torch.Generator) -> None:
    for p, g in zip(stacked, _grads(stacked, gen), strict=True):
        p.grad = g
    ours.step()


@pytest.mark.parametrize("weight_decay", [0.0, 0.01, 0.5])
def test_each_member_moves_as_torch_rmsprop_moves_it_alone(weight_decay: float) -> None:
    stacked = _stacked(len(LRS))
    alone = [_alone(stacked, k) for k in range(len(LRS))]
    ours = StackedRMSprop(stacked, LRS, weight_decay=weight_decay)
    theirs = [
        torch.optim.RMSprop(a, lr=lr, weight_decay=weight_decay)
        for a, lr in zip(alone, LRS, strict=True)
    ]
    gen = torch.Generator().manual_seed(1)
    for t in range(20):
        grads = _grads(stacked, gen)
        for i, (p, g) in enumerate(zip(stacked, grads, strict=True)):
            p.grad = None if i == 1 and t % 3 == 0 else g.clone()  # skipped, as torch skips
        ours.step()
        for params, rmsprop in zip(alone, theirs, strict=True):
            k = theirs.index(rmsprop)
            for i, (q, g) in enumerate(zip(params, grads, strict=True)):
                q.grad = None if i == 1 and t % 3 == 0 else g[k].clone()
            rmsprop.step()
    for k, params in enumerate(alone):
        for p, q in zip(stacked, params, strict=True):
            torch.testing.assert_close(p.detach()[k], q.detach(), rtol=0, atol=1e-12)


def test_a_rate_of_zero_and_a_frozen_member_stay_where_they_were() -> None:
    stacked = _stacked(3)
    before = [p.detach().clone() for p in stacked]
    ours = StackedRMSprop(stacked, [0.1, 0.0, 0.1], weight_decay=0.1)
    gen = torch.Generator().manual_seed(3)
    _step(stacked, ours, gen)
    ours.freeze(2)
    kept = torch.optim.RMSprop(_alone(stacked, 2), lr=0.1, weight_decay=0.1)
    ours.export_member(2, kept)
    frozen = [p.detach()[2].clone() for p in stacked]
    for _ in range(4):
        _step(stacked, ours, gen)
    later = torch.optim.RMSprop(_alone(stacked, 2), lr=0.1, weight_decay=0.1)
    ours.export_member(2, later)
    for a, b in zip(kept.state.values(), later.state.values(), strict=True):
        assert torch.equal(a["step"], b["step"]) and torch.equal(a["square_avg"], b["square_avg"])
    for p, b, f in zip(stacked, before, frozen, strict=True):
        assert torch.equal(p.detach()[1], b[1]) and torch.equal(p.detach()[2], f)
        assert not torch.equal(p.detach()[0], b[0])
    assert ours.frozen == (False, False, True)


def test_an_rmsprop_that_does_not_fit_is_refused() -> None:
    stacked = _stacked(2)
    ours = StackedRMSprop(stacked, [0.1, 0.1], weight_decay=0.01)
    with pytest.raises(ValueError, match="rmsprop: its weight_decay is 0, "):
        ours.export_member(0, torch.optim.RMSprop(_alone(stacked, 0), lr=0.1))
    with pytest.raises(ValueError, match=r"rmsprop: its momentum is 0\.9, "):
        ours.export_member(
            0, torch.optim.RMSprop(_alone(stacked, 0), weight_decay=0.01, momentum=0.9)
        )
    with pytest.raises(ValueError, match="rmsprop: its parameters are of shapes"):
        ours.import_member(0, torch.optim.RMSprop(_alone(stacked, 0)[:2], weight_decay=0.01))
    with pytest.raises(ValueError, match=r"rmsprop: expected a torch\.optim\.RMSprop"):
        ours.import_member(0, torch.optim.Adam(_alone(stacked, 0), weight_decay=0.01))
    with pytest.raises(ValueError, match=r"alpha: expected a finite number"):
        StackedRMSprop(stacked, [0.1, 0.1], alpha=1.0)


@pytest.mark.parametrize(
    ("name", "stacked_kind", "alone_kind"),
    [
        ("adam", StackedAdam, torch.optim.Adam),
        ("adamw", StackedAdam, torch.optim.AdamW),
        ("rmsprop", StackedRMSprop, torch.optim.RMSprop),
    ],
)
def test_an_optimiser_name_gives_the_stacked_and_the_single_run_pair(
    name: str, stacked_kind: type, alone_kind: type
) -> None:
    stacked = _stacked(2)
    ours = stacked_optimizer(name, stacked, [0.1, 0.2], 0.01)  # type: ignore[arg-type]
    theirs = member_optimizer(name, _alone(stacked, 1), 0.2, 0.01)  # type: ignore[arg-type]
    assert type(ours) is stacked_kind and type(theirs) is alone_kind
    ours.export_member(1, theirs)  # they fit each other
    with pytest.raises(ValueError, match="optimizer: expected one of adam, adamw, rmsprop"):
        stacked_optimizer("sgd", stacked, [0.1, 0.2], 0.0)  # type: ignore[arg-type]
