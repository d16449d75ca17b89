"""Adam and AdamW over flat buffers (``memrnn.training.flat_adam``) move the weights and
keep the state exactly as torch's Adam and AdamW, on their own path and on torch's, and
the lean ``clip_grad_norm_`` clips exactly as torch's."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
import torch
from torch import Tensor, nn

from memrnn.training.clipping import clip_grad_norm_
from memrnn.training.flat_adam import FlatAdam, FlatAdamW
from memrnn.training.stacked import member_optimizer

# sizes that leave the vector kernels' tails at different places, and a transposed one
SHAPES = [(7, 5), (5,), (1,), (3, 3, 3), (19,), (33, 2), (64,)]
KINDS = [(FlatAdam, torch.optim.Adam), (FlatAdamW, torch.optim.AdamW)]


def _params(dtype: torch.dtype = torch.float32) -> list[nn.Parameter]:
    gen = torch.Generator().manual_seed(0)
    params = [nn.Parameter(torch.randn(s, generator=gen, dtype=dtype)) for s in SHAPES]
    params.append(nn.Parameter(torch.randn(6, 4, generator=gen, dtype=dtype).t()))
    return params


def _copy(params: list[nn.Parameter]) -> list[nn.Parameter]:
    return [nn.Parameter(p.detach().clone()) for p in params]


def _set_grads(params: list[nn.Parameter], gen: torch.Generator, skip: int | None = None) -> None:
    for i, p in enumerate(params):
        scale = 10.0 ** torch.randint(-4, 2, (), generator=gen).item()
        grad = torch.randn(p.shape, generator=gen, dtype=p.dtype) * scale
        p.grad = None if i == skip else grad


Pair = tuple[list[nn.Parameter], torch.optim.Optimizer]
Hook = Callable[[int, list[nn.Parameter], torch.optim.Optimizer], None]


def _train_alike(
    pairs: list[Pair], gen: torch.Generator, steps: int, *,
    skip: Callable[[int], int | None] = lambda step: None,
    before: Hook | None = None, after: Hook | None = None,
) -> None:  # fmt: skip
    """``steps`` steps of each optimiser, every one given the same gradients; ``skip``
    names a parameter left without a gradient at a step; ``before`` and ``after`` run
    around each optimiser's step."""
    for step in range(steps):
        state = gen.get_state()
        for params, optimizer in pairs:
            gen.set_state(state)
            _set_grads(params, gen, skip(step))
            if before is not None:
                before(step, params, optimizer)
            optimizer.step()
            if after is not None:
                after(step, params, optimizer)


def _same(a: list[nn.Parameter], b: list[nn.Parameter]) -> None:
    for p, q in zip(a, b, strict=True):
        assert torch.equal(p, q)


def _same_state(ours: torch.optim.Optimizer, theirs: torch.optim.Optimizer) -> None:
    a, b = ours.state_dict(), theirs.state_dict()
    settings = [[{k: v for k, v in g.items() if k != "foreach"} for g in d["param_groups"]]
                for d in (a, b)]  # fmt: skip
    assert settings[0] == settings[1]
    assert a["state"].keys() == b["state"].keys()
    for i, entry in a["state"].items():
        assert entry.keys() == b["state"][i].keys()
        for name, value in entry.items():
            assert torch.equal(value, b["state"][i][name]), (i, name)
            assert value.dtype == b["state"][i][name].dtype


@pytest.mark.parametrize(("flat_kind", "torch_kind"), KINDS)
@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("foreach", [True, False])
def test_the_flat_step_moves_as_torchs(
    flat_kind: type, torch_kind: type, weight_decay: float, dtype: torch.dtype, foreach: bool
) -> None:
    ours_params = _params(dtype)
    theirs_params = _copy(ours_params)
    ours = flat_kind(ours_params, lr=0.01, weight_decay=weight_decay, foreach=True)
    theirs = torch_kind(theirs_params, lr=0.01, weight_decay=weight_decay, foreach=foreach)

    def slower(step: int, params: list[nn.Parameter], optimizer: torch.optim.Optimizer) -> None:
        if step == 20:  # as a schedule changes the rate
            optimizer.param_groups[0]["lr"] = 0.003

    gen = torch.Generator().manual_seed(1)
    _train_alike([(ours_params, ours), (theirs_params, theirs)], gen, 40, before=slower)
    assert ours._flat is not None  # the flat path ran
    _same(ours_params, theirs_params)
    _same_state(ours, theirs)


@pytest.mark.parametrize(("flat_kind", "torch_kind"), KINDS)
@pytest.mark.parametrize("missed", [range(5, 10), range(0, 3)])
def test_a_parameter_without_a_gradient_takes_torchs_step(
    flat_kind: type, torch_kind: type, missed: range
) -> None:
    ours_params = _params()
    theirs_params = _copy(ours_params)
    ours = flat_kind(ours_params, lr=0.01, weight_decay=0.1)
    theirs = torch_kind(theirs_params, lr=0.01, weight_decay=0.1)
    gen = torch.Generator().manual_seed(2)
    # the second parameter misses some steps (from the first: it has no state until
    # its first gradient), so its step count then lags
    _train_alike([(ours_params, ours), (theirs_params, theirs)], gen, 30,
                 skip=lambda step: 1 if step in missed else None)  # fmt: skip
    assert ours._flat is None
    _same(ours_params, theirs_params)
    _same_state(ours, theirs)


@pytest.mark.parametrize(
    "settings", [{"amsgrad": True}, {"maximize": True}, {"betas": (0.8, 0.99), "eps": 1e-6}]
)
def test_settings_the_flat_step_leaves_to_torch_or_takes(settings: dict[str, object]) -> None:
    ours_params = _params()
    theirs_params = _copy(ours_params)
    ours = FlatAdam(ours_params, lr=0.01, **settings)
    theirs = torch.optim.Adam(theirs_params, lr=0.01, **settings)
    gen = torch.Generator().manual_seed(3)
    _train_alike([(ours_params, ours), (theirs_params, theirs)], gen, 15)
    _same(ours_params, theirs_params)
    _same_state(ours, theirs)


def test_several_parameter_groups_take_torchs_step() -> None:
    ours_params = _params()
    theirs_params = _copy(ours_params)
    ours = FlatAdamW([{"params": ours_params[:3]}, {"params": ours_params[3:], "lr": 0.1}])
    theirs = torch.optim.AdamW([{"params": theirs_params[:3]}, {"params": theirs_params[3:],
                                                                   "lr": 0.1}])  # fmt: skip
    gen = torch.Generator().manual_seed(4)
    _train_alike([(ours_params, ours), (theirs_params, theirs)], gen, 10)
    assert ours._flat is None
    _same(ours_params, theirs_params)


@pytest.mark.parametrize("skip", [None, 1])
def test_step_hooks_run_once_a_step_on_either_path(skip: int | None) -> None:
    params = _params()
    torch.optim.Adam(_copy(params))  # torch wraps Adam's step once it has an instance
    optimizer = FlatAdam(params, lr=0.01)
    calls: list[str] = []
    optimizer.register_step_pre_hook(lambda *_: calls.append("pre"))
    optimizer.register_step_post_hook(lambda *_: calls.append("post"))
    gen = torch.Generator().manual_seed(8)
    for _ in range(3):
        _set_grads(params, gen, skip)
        optimizer.step()
    assert calls == ["pre", "post"] * 3
    assert (optimizer._flat is None) == (skip is not None)


def _saved(optimizer: torch.optim.Optimizer) -> dict[str, object]:
    buffer = io.BytesIO()
    torch.save(optimizer.state_dict(), buffer)
    buffer.seek(0)
    loaded: dict[str, object] = torch.load(buffer, weights_only=True)
    return loaded


@pytest.mark.parametrize(("flat_kind", "torch_kind"), KINDS)
def test_state_goes_to_torchs_optimiser_and_back(flat_kind: type, torch_kind: type) -> None:
    """A checkpoint of either resumes in the other, and both go on alike."""
    params = _params()
    flat = flat_kind(params, lr=0.01, weight_decay=0.1)
    gen = torch.Generator().manual_seed(5)
    for _ in range(10):
        _set_grads(params, gen)
        flat.step()
    # torch's optimiser resumes from the flat one's checkpoint ...
    theirs_params = _copy(params)
    theirs = torch_kind(theirs_params, lr=0.01, weight_decay=0.1)
    theirs.load_state_dict(_saved(flat))
    # ... and a fresh flat one from torch's, after torch's own steps
    _train_alike([(params, flat), (theirs_params, theirs)], gen, 5)
    again_params = _copy(theirs_params)
    again = flat_kind(again_params, lr=0.01, weight_decay=0.1)
    again.load_state_dict(_saved(theirs))
    _train_alike([(params, flat), (theirs_params, theirs), (again_params, again)], gen, 5)
    _same(params, theirs_params)
    _same(again_params, theirs_params)
    _same_state(flat, theirs)
    _same_state(again, theirs)


def test_state_written_from_outside_is_taken_up() -> None:
    """A moment replaced in ``optimizer.state`` (as a stacked optimiser hands a member's
    state over) is what the next step uses."""
    ours_params = _params()
    theirs_params = _copy(ours_params)
    ours = FlatAdam(ours_params, lr=0.01)
    theirs = torch.optim.Adam(theirs_params, lr=0.01)

    def write(step: int, params: list[nn.Parameter], optimizer: torch.optim.Optimizer) -> None:
        if step == 3:
            entry = optimizer.state[params[0]]
            entry["exp_avg"] = torch.full_like(entry["exp_avg"], 0.5)
        if step == 5:
            optimizer.state[params[2]]["exp_avg_sq"].mul_(4.0)

    gen = torch.Generator().manual_seed(6)
    _train_alike([(ours_params, ours), (theirs_params, theirs)], gen, 8, after=write)
    assert ours._flat is not None
    _same(ours_params, theirs_params)
    _same_state(ours, theirs)


def test_the_parameters_keep_their_own_storage() -> None:
    """The flat buffers are copies: a parameter is not made a view of them (safetensors
    refuses to save tensors that share storage)."""
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    pointers = [p.data_ptr() for p in model.parameters()]
    optimizer = FlatAdamW(model.parameters(), lr=0.1)
    model(torch.randn(5, 3)).sum().backward()
    optimizer.step()
    assert optimizer._flat is not None
    assert [p.data_ptr() for p in model.parameters()] == pointers


def test_a_run_gets_the_flat_optimisers() -> None:
    params = _params()
    assert type(member_optimizer("adam", params, 0.1, 0.0)) is FlatAdam
    assert type(member_optimizer("adamw", params, 0.1, 0.1)) is FlatAdamW


def _grads(params: list[nn.Parameter]) -> list[Tensor | None]:
    return [None if p.grad is None else p.grad.clone() for p in params]


@pytest.mark.parametrize("scale", [1e-3, 1.0, 100.0])
@pytest.mark.parametrize("skip", [None, 2])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_clip_grad_norm_clips_as_torchs(scale: float, skip: int | None, dtype: torch.dtype) -> None:
    ours_params = _params(dtype)
    theirs_params = _copy(ours_params)
    gen = torch.Generator().manual_seed(7)
    for params in (ours_params, theirs_params):
        gen.manual_seed(7)
        _set_grads(params, gen, skip)
        for p in params:
            if p.grad is not None:
                p.grad.mul_(scale)
    ours = clip_grad_norm_(ours_params, 1.0)
    theirs = nn.utils.clip_grad_norm_(theirs_params, 1.0)
    assert torch.equal(ours, theirs)
    for a, b in zip(_grads(ours_params), _grads(theirs_params), strict=True):
        assert (a is None and b is None) or (a is not None and b is not None and torch.equal(a, b))


def test_clip_grad_norm_leaves_mixed_dtypes_and_no_gradients_to_torch() -> None:
    mixed, reference = (
        [nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(2, dtype=torch.float64))]
        for _ in range(2)
    )
    for p in mixed + reference:
        p.grad = torch.full_like(p, 3.0)
    assert torch.equal(clip_grad_norm_(mixed, 1.0), nn.utils.clip_grad_norm_(reference, 1.0))
    for p, q in zip(mixed, reference, strict=True):
        assert torch.equal(p.grad, q.grad)  # type: ignore[arg-type]
    none = [nn.Parameter(torch.ones(3))]
    assert torch.equal(clip_grad_norm_(none, 1.0), nn.utils.clip_grad_norm_(none, 1.0))
