"""The Stack-RNN and the Fast Weights RNN trained as one (memrnn.models.grouped) against
their members one by one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import nn

from memrnn.models import FastWeightsRNN, SuperpositionStackRNN
from memrnn.models.grouped import Grouped, groupable
from tests.models.grouped_checks import K, check_against_members, inputs, members


def _stack_rnn(cell: str, **options: object) -> Callable[[], nn.Module]:
    return lambda: SuperpositionStackRNN(5, 7, 6, 3, 4, cell=cell, **options)  # type: ignore[arg-type]


def _fast_weights(**options: object) -> Callable[[], nn.Module]:
    return lambda: FastWeightsRNN(5, 7, 6, readout=11, **options)  # type: ignore[arg-type]


def _members(build: Callable[[], nn.Module], dtype: torch.dtype = torch.float32) -> list[nn.Module]:
    return members(build, dtype, scale=2.0)  # actions spread over (0, 1), states differ


# The stack's depth (4) is below the steps (9): pushes drop the bottom row. Wayman's "slow"
# norm leaves the fast term unbounded: a small eta keeps it finite over 9 steps.
CASES = {
    **{f"stack-{cell}-{kind}": (_stack_rnn(cell), kind == "ids")
       for cell in ("rnn", "gru", "lstm") for kind in ("ids", "vectors")},
    "fast-ids": (_fast_weights(), True),
    "fast-vectors": (_fast_weights(), False),
    "fast-inner3": (_fast_weights(inner_steps=3, decay=0.5), False),
    "fast-slow-norm": (_fast_weights(norm="slow", fast_lr=0.01), True),
    "fast-matrix-form": (_fast_weights(form="matrix", inner_steps=2), False),
}  # fmt: skip


@pytest.mark.parametrize(
    ("dtype", "atol"), [(torch.float32, 1e-5), (torch.float64, 1e-12)], ids=["f32", "f64"]
)
@pytest.mark.parametrize(("build", "tokens"), CASES.values(), ids=CASES.keys())
def test_forward_and_gradients_match_the_members(
    build: Callable[[], nn.Module], tokens: bool, dtype: torch.dtype, atol: float
) -> None:
    check_against_members(
        _members(build, dtype), inputs(tokens, 4, 9, dtype), atol, gradients="nonzero"
    )


@pytest.mark.parametrize(("build", "tokens"), CASES.values(), ids=CASES.keys())
def test_one_step_and_one_row(build: Callable[[], nn.Module], tokens: bool) -> None:
    # from the zero state and an empty stack, W_hh, W_sh and W get no gradient at T = 1,
    # nor the actions and the pushed value, which only a second step would read
    x = inputs(tokens, 1, 1, torch.float32)
    check_against_members(_members(build), x, 1e-5, gradients="any")


def test_the_stack_pushes_and_pops_in_every_member() -> None:
    """The equality above means something: each member's actions are spread, not stuck."""
    members = _members(_stack_rnn("rnn"))
    x = inputs(True, 4, 9, torch.float32)
    for k, member in enumerate(members):
        assert isinstance(member, SuperpositionStackRNN)
        push = member.trace(x[k]).push.detach()
        assert float(push.min()) < 0.4 and float(push.max()) > 0.6


def test_groupable() -> None:
    assert groupable(_stack_rnn("gru")())
    assert groupable(_fast_weights(norm="slow")())
    assert groupable(_fast_weights(form="matrix")())


class _Deeper(SuperpositionStackRNN):
    """A subclass may change the forward: it groups by its own forward under vmap."""

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return 2 * super().forward(inputs)


@pytest.mark.parametrize(
    ("first", "second", "match"),
    [
        (_stack_rnn("rnn"), _stack_rnn("gru"), r"members\[1\]: its cell.class is 'GRUCell'"),
        (_stack_rnn("rnn"), lambda: SuperpositionStackRNN(5, 7, 6, 3, 5), "stack_depth is 5"),
        (_fast_weights(), _fast_weights(decay=0.9), r"decay is 0\.9"),
        (_fast_weights(), _fast_weights(fast_lr=0.4), r"fast_lr is 0\.4"),
        (_fast_weights(), _fast_weights(inner_steps=2), "inner_steps is 2"),
        (_fast_weights(), _fast_weights(norm="slow"), "norm_over is 'slow'"),
        (_fast_weights(), _fast_weights(form="matrix"), "form is 'matrix'"),
        (
            _fast_weights(),
            lambda: FastWeightsRNN(5, 7, 6, readout=12),
            "readout.0.out_features is 12",
        ),
        (_stack_rnn("rnn"), _fast_weights(), r"a FastWeightsRNN, but members\[0\]"),
    ],
)
def test_members_must_agree(
    first: Callable[[], nn.Module], second: Callable[[], nn.Module], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        Grouped([first(), second()])


def test_a_subclass_groups_by_its_own_forward() -> None:
    models = []
    for seed in range(K):
        torch.manual_seed(seed)
        models.append(_Deeper(5, 7, 6, 3, 4))
    assert groupable(models[0])
    check_against_members(models, inputs(True, 2, 6, torch.float32), atol=1e-5)


def test_badinputs() -> None:
    grouped = Grouped(_members(_fast_weights()))
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 4 .* found 5"):
        grouped(torch.full((K, 2, 4), 5))
    with pytest.raises(ValueError, match=r"inputs: expected vectors \(3, B, T, 5\)"):
        Grouped(_members(_stack_rnn("lstm")))(torch.zeros(K, 2, 4, 6))
