"""A forward that no backward follows keeps one step's gates, cell states and read weights
(``Shape.lean``): the same outputs bit for bit as the forward that keeps every step's, and
taken only where nothing can ask for a gradient."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from memrnn.models import MemoryRNN
from memrnn.models.controller import fused, ops
from memrnn.models.controller.fused import forward
from tests.models.controller.cases import CASES, _case

# What a forward hands on besides its backward's buffers: the reads and h (rh), the
# gates and values (q_all), o' (p_all), the strengths, the values and the last state.
KEPT = ("rh", "q_all", "p_all", "strengths", "values", "h_last", "c_last", "r_last",
        "s_last", "values_last")  # fmt: skip


@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
@pytest.mark.parametrize("members", [None, 3])
@pytest.mark.parametrize("start", [0, 4])
def test_a_lean_forward_gives_the_same_outputs(
    memory: str, cell: str, o_prime: bool, members: int | None, start: int
) -> None:
    inputs, shape, _ = _case(memory, cell, o_prime, members, start, torch.float32, seed=2,
                             t_len=12)  # fmt: skip
    xw, h0, c0, w_rec, w_p, b_p, w_q, b_q, noise, r0, s0, values0 = inputs

    def run(lean: bool) -> fused.Run:
        lean_shape = dataclasses.replace(shape, lean=lean)
        return forward(xw, h0, c0, w_rec, w_p, b_p, w_q, b_q, noise, lean_shape, r0, s0,
                       values0)  # type: ignore[arg-type]  # fmt: skip

    full, lean = run(False), run(True)
    for name in KEPT:
        assert torch.equal(getattr(lean, name), getattr(full, name)), name
    if cell == "lstm":  # lean, one row of gates and cells, written by every step
        assert lean.acts.stride(0) == 0 and lean.cells.stride(0) == 0


def _leans(model: MemoryRNN, inputs: torch.Tensor, monkeypatch: pytest.MonkeyPatch) -> list:
    seen: list[bool] = []
    real = ops.forward

    def spy(*args: object, **kwargs: object) -> fused.Run:
        seen.append(args[9].lean)  # type: ignore[attr-defined]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ops, "forward", spy)
    model(inputs)
    return seen


def test_only_a_forward_that_no_gradient_can_follow_is_lean(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gen = torch.Generator().manual_seed(0)
    model = MemoryRNN(5, 5, 8, 4, memory="deque", cell="lstm")
    tokens = torch.randint(0, 5, (3, 6), generator=gen)
    assert _leans(model, tokens, monkeypatch) == [False]  # training: a backward may follow
    full = model(tokens)
    with torch.no_grad():
        assert _leans(model, tokens, monkeypatch)[-1:] == [True]
        assert torch.equal(model(tokens), full)
    model.requires_grad_(False)
    assert _leans(model, tokens, monkeypatch)[-1:] == [True]


def test_a_lean_forward_has_no_backward() -> None:
    inputs, shape, (grad_p, grad_gates, grad_last) = _case("stack", "lstm", True, None, 0,
                                                           torch.float32, seed=0)  # fmt: skip
    lean = dataclasses.replace(shape, lean=True)
    run = forward(*inputs[:9], lean, *inputs[9:])  # type: ignore[arg-type]
    config = ("stack", 0, lean.hidden, lean.width, True, False, True)
    with pytest.raises(RuntimeError, match=r"lean forward .* no backward"):
        ops._backward_op(*run[:9], inputs[3], inputs[4], inputs[6], grad_p, grad_gates,
                         *grad_last, *config)  # type: ignore[arg-type]  # fmt: skip
