"""The recurrent baselines trained as one (memrnn.models.grouped_baselines) against the K
models one by one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import nn

from memrnn.models import IRNN, AttentionLSTM, DeepLSTM, GRUNetwork, OneHotLSTM
from memrnn.models.grouped import FORWARDS, Grouped, groupable, recipe
from memrnn.models.grouped_baselines import AttentionSequence
from memrnn.models.grouped_lstm import LSTMSequence
from tests.models.grouped_checks import (
    K,
    check_against_members,
    dropping_deep_lstm,
    inputs,
    members,
)

BUILDS: dict[str, Callable[[], nn.Module]] = {
    "irnn": lambda: IRNN(5, 6, 8, readout=7),
    "lstm": lambda: OneHotLSTM(5, 6, 8, readout=7),
    "alstm": lambda: AttentionLSTM(5, 6, 8, readout=7),
    "gru": lambda: GRUNetwork(5, 6, 8),
    "deep_lstm": lambda: DeepLSTM(5, 6, hidden_size=8, embedding=4, layers=2),
}
# The gated models' weights doubled: gates spread over (0, 1), attention peaks; the
# IRNN's halved: its ReLU states stay near 1 over the steps, not growing to where float32
# rounds its gradients past the tolerance.
SCALE = {"irnn": 0.5, "lstm": 2.0, "alstm": 2.0, "gru": 2.0, "deep_lstm": 2.0}


def _members(name: str, dtype: torch.dtype = torch.float32) -> list[nn.Module]:
    # the noise makes the IRNN's W more than a diagonal
    return members(BUILDS[name], dtype, scale=SCALE[name], noise=0.1)


@pytest.mark.parametrize(
    ("dtype", "atol"), [(torch.float32, 1e-5), (torch.float64, 1e-12)], ids=["f32", "f64"]
)
@pytest.mark.parametrize("tokens", [True, False], ids=["ids", "vectors"])
@pytest.mark.parametrize("name", list(BUILDS))
@pytest.mark.parametrize(("batch", "steps"), [(4, 9), (1, 1)], ids=["4x9", "1x1"])
def test_forward_and_gradients_match_the_members(
    name: str, tokens: bool, dtype: torch.dtype, atol: float, batch: int, steps: int
) -> None:
    logits = check_against_members(_members(name, dtype), inputs(tokens, batch, steps, dtype), atol)
    assert logits.shape == (K, batch, steps, 6)


def test_all_are_registered_and_groupable() -> None:
    assert {IRNN, OneHotLSTM, AttentionLSTM, GRUNetwork, DeepLSTM} <= FORWARDS.keys()
    assert all(groupable(build()) for build in BUILDS.values())

    class Tuned(IRNN):  # a subclass may change the forward: it groups by vmap over its own
        pass

    assert groupable(Tuned(5, 6, 8)) and recipe(Tuned(5, 6, 8)) is not FORWARDS[IRNN]
    assert not groupable(dropping_deep_lstm())


def test_members_must_agree() -> None:
    # the starting scale of W changes the weights, not the forward: these group
    Grouped([IRNN(5, 6, 8, recurrent_scale=1.0), IRNN(5, 6, 8, recurrent_scale=0.5)])
    with pytest.raises(ValueError, match=r"members\[1\]: options \(5, 7, 8\) differ"):
        Grouped([IRNN(5, 6, 8), IRNN(5, 7, 8)])
    with pytest.raises(ValueError, match=r"members\[1\]: options \(5, 6, 4\) differ"):
        Grouped([AttentionLSTM(5, 6, 8), AttentionLSTM(5, 6, 4)])
    with pytest.raises(ValueError, match=r"members\[1\]: parameter readout.0.weight is \(9, 8\)"):
        Grouped([IRNN(5, 6, 8), IRNN(5, 6, 8, readout=9)])
    with pytest.raises(ValueError, match=r"members\[1\]: options \(4, 6, 8\) differ"):
        Grouped([GRUNetwork(5, 6, 8), GRUNetwork(4, 6, 8)])
    with pytest.raises(ValueError, match=r"members\[1\]: options \(5, 6, 8, 3, 4\) differ"):
        Grouped([DeepLSTM(5, 6, hidden_size=8, embedding=4, layers=2),
                 DeepLSTM(5, 6, hidden_size=8, embedding=4, layers=3)])  # fmt: skip
    with pytest.raises(ValueError, match=r"members\[1\]: a AttentionLSTM, but members\[0\]"):
        Grouped([OneHotLSTM(5, 6, 8), AttentionLSTM(5, 6, 8)])


def test_badinputs() -> None:
    grouped = Grouped(_members("alstm"))
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 4 .* found 5"):
        grouped(torch.full((K, 2, 4), 5))
    with pytest.raises(ValueError, match=r"inputs: expected vectors \(3, B, T, 5\)"):
        grouped(torch.zeros(K, 2, 4, 6))


def test_the_lstm_sequence_backward_is_the_gradient() -> None:
    gen = torch.Generator().manual_seed(1)
    xw = torch.randn(2, 3, 4, 8, generator=gen, dtype=torch.float64, requires_grad=True)
    w_hh = torch.randn(2, 8, 2, generator=gen, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(LSTMSequence.apply, (xw, w_hh))


@pytest.mark.parametrize("steps", [1, 5])
def test_the_attention_sequence_backward_is_the_gradient(steps: int) -> None:
    gen = torch.Generator().manual_seed(2)

    def drawn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=torch.float64, requires_grad=True)

    # K = 2 members, B = 3 rows, R = 2 units: xw (K, B, T, 4R), bias (K, 1, 4R), the
    # weights on [context ; h] (K, 2R, 4R) and the query's (K, R, R)
    args = (drawn(2, 3, steps, 8), drawn(2, 1, 8), drawn(2, 4, 8), drawn(2, 2, 2))
    assert torch.autograd.gradcheck(AttentionSequence.apply, args)
