"""Adam over stacked parameters: each member moves as torch.optim.Adam moves it alone;
a stacked optimiser's member state goes to its single-run optimiser and back."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor, nn

from memrnn.training import StackedAdam, StackedRMSprop, clip_grad_norm_per_member_

SHAPES = [(3, 4), (4,), (2, 3, 2)]
LRS = [0.1, 0.003, 0.02]


def _stacked(members: int, dtype: torch.dtype = torch.float64) -> list[nn.Parameter]:
    gen = torch.Generator().manual_seed(0)
    return [
        nn.Parameter(torch.randn((members, *shape), generator=gen, dtype=dtype)) for shape in SHAPES
    ]


def _alone(stacked: list[nn.Parameter], k: int) -> list[nn.Parameter]:
    return [nn.Parameter(p.detach()[k].clone()) for p in stacked]


def _grads(params: list[nn.Parameter], gen: torch.Generator) -> list[Tensor]:
    return [torch.randn(p.shape, generator=gen, dtype=p.dtype) * 3 for p in params]


@pytest.mark.parametrize("decoupled", [False, True])
@pytest.mark.parametrize("weight_decay", [0.0, 0.01, 0.5])
def test_each_member_moves_as_torch_adam_moves_it_alone(
    weight_decay: float, decoupled: bool
) -> None:
    stacked = _stacked(len(LRS))
    alone = [_alone(stacked, k) for k in range(len(LRS))]
    ours = StackedAdam(stacked, LRS, weight_decay=weight_decay, decoupled_weight_decay=decoupled)
    kind = torch.optim.AdamW if decoupled else torch.optim.Adam
    theirs = [kind(a, lr=lr, weight_decay=weight_decay) for a, lr in zip(alone, LRS, strict=True)]
    gen = torch.Generator().manual_seed(1)
    for _ in range(20):
        grads = _grads(stacked, gen)
        for p, g in zip(stacked, grads, strict=True):
            p.grad = g.clone()
        ours.step()
        for k, (params, adam) in enumerate(zip(alone, theirs, strict=True)):
            for q, g in zip(params, grads, strict=True):
                q.grad = g[k].clone()
            adam.step()
    for k, params in enumerate(alone):
        for p, q in zip(stacked, params, strict=True):
            torch.testing.assert_close(p.detach()[k], q.detach(), rtol=0, atol=1e-12)


PAIRS = [(StackedAdam, torch.optim.Adam), (StackedRMSprop, torch.optim.RMSprop)]


@pytest.mark.parametrize(("stacked_kind", "alone_kind"), PAIRS)
def test_float32_members_match_their_torch_optimiser_to_float_precision(
    stacked_kind: type[StackedAdam | StackedRMSprop], alone_kind: type[torch.optim.Optimizer]
) -> None:
    stacked = _stacked(2, torch.float32)
    alone = _alone(stacked, 1)
    ours, theirs = stacked_kind(stacked, [0.5, 0.01]), alone_kind(alone, lr=0.01)  # type: ignore[call-arg]
    gen = torch.Generator().manual_seed(2)
    for _ in range(20):
        grads = _grads(stacked, gen)
        for p, q, g in zip(stacked, alone, grads, strict=True):
            p.grad, q.grad = g.clone(), g[1].clone()
        ours.step()
        theirs.step()
    for p, q in zip(stacked, alone, strict=True):
        torch.testing.assert_close(p.detach()[1], q.detach(), rtol=0, atol=1e-6)


@pytest.mark.parametrize("decoupled", [False, True])
def test_a_rate_of_zero_leaves_a_member_exactly_where_it_was(decoupled: bool) -> None:
    stacked = _stacked(3)
    before = [p.detach().clone() for p in stacked]
    ours = StackedAdam(stacked, [0.1, 0.0, 0.1], weight_decay=0.1, decoupled_weight_decay=decoupled)
    gen = torch.Generator().manual_seed(3)
    for _ in range(5):
        for p, g in zip(stacked, _grads(stacked, gen), strict=True):
            p.grad = g
        ours.step()
    for p, b in zip(stacked, before, strict=True):
        assert torch.equal(p.detach()[1], b[1]) and not torch.equal(p.detach()[0], b[0])


def test_a_frozen_member_keeps_its_parameters_and_state() -> None:
    stacked = _stacked(2)
    ours = StackedAdam(stacked, [0.1, 0.1])
    gen = torch.Generator().manual_seed(4)

    def step() -> None:
        for p, g in zip(stacked, _grads(stacked, gen), strict=True):
            p.grad = g
        ours.step()

    step()
    ours.freeze(0)
    kept = torch.optim.Adam(_alone(stacked, 0), lr=0.1)
    ours.export_member(0, kept)
    weights = [p.detach()[0].clone() for p in stacked]
    ours.zero_grad()
    assert all(p.grad is None for p in stacked)
    step()
    step()
    assert ours.frozen == (True, False)
    later = torch.optim.Adam(_alone(stacked, 0), lr=0.1)
    ours.export_member(0, later)
    for a, b in zip(kept.state.values(), later.state.values(), strict=True):
        assert all(torch.equal(a[name], b[name]) for name in ("step", "exp_avg", "exp_avg_sq"))
    for p, w in zip(stacked, weights, strict=True):
        assert torch.equal(p.detach()[0], w)


def test_a_parameter_without_a_gradient_is_skipped_as_torch_skips_it() -> None:
    stacked = _stacked(2)
    alone = _alone(stacked, 0)
    ours, adam = StackedAdam(stacked, [0.1, 0.1]), torch.optim.Adam(alone, lr=0.1)
    gen = torch.Generator().manual_seed(5)
    for t in range(6):
        grads = _grads(stacked, gen)
        for i, (p, q, g) in enumerate(zip(stacked, alone, grads, strict=True)):
            skip = i == 1 and t % 2 == 0
            p.grad, q.grad = (None, None) if skip else (g.clone(), g[0].clone())
        ours.step()
        adam.step()
    for p, q in zip(stacked, alone, strict=True):
        torch.testing.assert_close(p.detach()[0], q.detach(), rtol=0, atol=1e-12)


@pytest.mark.parametrize(("stacked_kind", "alone_kind"), PAIRS)
def test_a_member_state_goes_to_its_torch_optimiser_and_back(
    stacked_kind: type[StackedAdam | StackedRMSprop], alone_kind: type[torch.optim.Optimizer]
) -> None:
    stacked = _stacked(3)
    ours = stacked_kind(stacked, LRS, weight_decay=0.01)
    gen = torch.Generator().manual_seed(6)
    for _ in range(4):
        for p, g in zip(stacked, _grads(stacked, gen), strict=True):
            p.grad = g
        ours.step()
    alone = _alone(stacked, 2)
    theirs = alone_kind(alone, lr=1.0, weight_decay=0.01)  # type: ignore[call-arg]
    ours.export_member(2, theirs)
    assert theirs.param_groups[0]["lr"] == LRS[2]
    assert [float(s["step"]) for s in theirs.state.values()] == [4.0] * len(SHAPES)
    # a single run continues from the exported state; the stacked one from its own
    other = stacked_kind(_stacked(3), [0.0, 0.0, 0.0], weight_decay=0.01)
    for p, q in zip(other.params, alone, strict=True):
        with torch.no_grad():
            p[2] = q
    other.import_member(2, theirs)
    assert other.lrs[2] == LRS[2]
    grads = _grads(stacked, gen)
    for p, p2, q, g in zip(stacked, other.params, alone, grads, strict=True):
        p.grad, p2.grad, q.grad = g.clone(), g.clone(), g[2].clone()
    ours.step()
    other.step()
    theirs.step()
    for p, p2, q in zip(stacked, other.params, alone, strict=True):
        torch.testing.assert_close(p.detach()[2], q.detach(), rtol=0, atol=1e-12)
        assert torch.equal(p.detach()[2], p2.detach()[2])


def test_an_adam_that_does_not_fit_is_refused() -> None:
    stacked = _stacked(2)
    ours = StackedAdam(stacked, [0.1, 0.1], weight_decay=0.01)
    with pytest.raises(ValueError, match="adam: its weight_decay is 0, "):
        ours.export_member(0, torch.optim.Adam(_alone(stacked, 0), lr=0.1))
    with pytest.raises(ValueError, match="adam: its parameters are of shapes"):
        ours.import_member(0, torch.optim.Adam(_alone(stacked, 0)[:2], weight_decay=0.01))
    with pytest.raises(ValueError, match="adam: its decoupled_weight_decay is True"):
        ours.export_member(0, torch.optim.AdamW(_alone(stacked, 0), weight_decay=0.01))
    with pytest.raises(ValueError, match=r"member: expected an int in 0\.\.1, got 2"):
        ours.freeze(2)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="lrs: expected 3 rates, one per member, got 2"):
        StackedAdam(_stacked(3), [0.1, 0.1])
    with pytest.raises(ValueError, match="lrs\\[1\\]: expected a finite number >= 0"):
        StackedAdam(_stacked(2), [0.1, -1.0])
    with pytest.raises(ValueError, match="params: expected a common leading"):
        StackedAdam([nn.Parameter(torch.zeros(2, 3)), nn.Parameter(torch.zeros(3))], [0.1, 0.1])
    with pytest.raises(ValueError, match="params: expected at least one"):
        StackedAdam([], [])
    with pytest.raises(ValueError, match="weight_decay: expected a finite number >= 0"):
        StackedAdam(_stacked(2), [0.1, 0.1], weight_decay=-0.1)


@pytest.mark.parametrize("max_norm", [0.5, 3.0, 1e6])
def test_clipping_matches_clip_grad_norm_on_each_member_alone(max_norm: float) -> None:
    stacked = _stacked(3)
    gen = torch.Generator().manual_seed(7)
    grads = _grads(stacked, gen)
    grads[1][2] *= 1e-3  # a member whose gradient is not clipped at the smaller norms
    for p, g in zip(stacked, grads, strict=True):
        p.grad = g.clone()
    norms = clip_grad_norm_per_member_(stacked, max_norm)
    for k in range(3):
        alone = _alone(stacked, k)
        for q, g in zip(alone, grads, strict=True):
            q.grad = g[k].clone()
        norm = nn.utils.clip_grad_norm_(alone, max_norm)
        torch.testing.assert_close(norms[k], norm, rtol=0, atol=1e-12)
        for p, q in zip(stacked, alone, strict=True):
            assert p.grad is not None and q.grad is not None
            torch.testing.assert_close(p.grad[k], q.grad, rtol=0, atol=1e-12)


def test_clipping_asks_for_a_positive_norm_and_gradients() -> None:
    stacked = _stacked(2)
    with pytest.raises(ValueError, match="params: no stacked parameter has a gradient"):
        clip_grad_norm_per_member_(stacked, 1.0)
    with pytest.raises(ValueError, match="max_norm: expected a finite number > 0"):
        clip_grad_norm_per_member_(stacked, 0.0)
