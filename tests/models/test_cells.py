"""The written-out cells agree with PyTorch's own, outputs and gradients, and vmap runs
them over stacked weights."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn
from torch.func import functional_call, vmap

from memrnn.models.cells import gru_step, lstm_step, rnn_step

CELLS = {
    "rnn": (lambda: nn.RNNCell(5, 7), rnn_step),
    "relu": (lambda: nn.RNNCell(5, 7, nonlinearity="relu"), rnn_step),
    "gru": (lambda: nn.GRUCell(5, 7), gru_step),
    "lstm": (lambda: nn.LSTMCell(5, 7), lstm_step),
}


def _state(kind: str, batch: int) -> tuple[torch.Tensor, ...]:
    return tuple(torch.randn(batch, 7) for _ in range(2 if kind == "lstm" else 1))


@pytest.mark.parametrize("kind", CELLS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_written_cell_is_torchs_cell(kind: str, seed: int) -> None:
    torch.manual_seed(seed)
    make, step = CELLS[kind]
    cell = make()
    x = torch.randn(3, 5, requires_grad=True)
    state = _state(kind, 3)
    arg = state if kind == "lstm" else state[0]
    ours, theirs = step(cell, x, arg), cell(x, arg)  # type: ignore[arg-type]
    ours_t = ours if isinstance(ours, tuple) else (ours,)
    theirs_t = theirs if isinstance(theirs, tuple) else (theirs,)
    for a, b in zip(ours_t, theirs_t, strict=True):
        torch.testing.assert_close(a, b)
    weights = torch.randn_like(torch.cat([t.flatten() for t in theirs_t]))
    grads = []
    for out in (ours_t, theirs_t):
        loss = (torch.cat([t.flatten() for t in out]) * weights).sum()
        grads.append(torch.autograd.grad(loss, [x, *cell.parameters()], retain_graph=True))
    for a, b in zip(*grads, strict=True):
        torch.testing.assert_close(a, b)


class _Step(nn.Module):
    """A cell stepped by its written-out step, as a module that functional_call runs."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        make, self.step = CELLS[kind]
        self.cell, self.kind = make(), kind

    def forward(self, x: torch.Tensor, *state: torch.Tensor) -> torch.Tensor:
        out = self.step(self.cell, x, state if self.kind == "lstm" else state[0])
        return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("kind", CELLS)
def test_vmap_runs_a_written_cell_over_stacked_weights(kind: str) -> None:
    torch.manual_seed(0)
    members = [_Step(kind) for _ in range(3)]
    x = torch.randn(3, 2, 5)
    states = [torch.stack(s) for s in zip(*(_state(kind, 2) for _ in members), strict=True)]
    params = {name: torch.stack([m.get_parameter(name) for m in members])
              for name, _ in members[0].named_parameters()}  # fmt: skip

    def member(p: dict[str, torch.Tensor], *args: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = functional_call(members[0], p, args)
        return out

    with warnings.catch_warnings():  # no member-by-member fallback ("performance drop")
        warnings.simplefilter("error")
        out = vmap(member)(params, x, *states)
    for k, m in enumerate(members):
        torch.testing.assert_close(out[k], m(x[k], *(s[k] for s in states)))
