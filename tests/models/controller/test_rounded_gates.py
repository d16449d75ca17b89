"""``round_gates``: in evaluation mode a controller pushes and pops whole values, so a
gate near 0 or 1 leaks nothing however long the input; training is unchanged."""

from __future__ import annotations

import math

import pytest
import torch

from memrnn.models import build_model
from memrnn.models.controller import MemoryRNN


def _leaky_stack(round_gates: bool) -> MemoryRNN:
    """A stack that pushes 0.9 of every value and pops 0.05 of the stack at each step."""
    torch.manual_seed(0)
    model = MemoryRNN(3, 4, 5, 2, memory="stack", cell="lstm", round_gates=round_gates).double()
    with torch.no_grad():
        for gate, strength in ((model.top.push, 0.9), (model.top.pop, 0.05)):
            gate.weight.zero_()
            gate.bias.fill_(math.log(strength / (1 - strength)))
    return model


def test_rounded_gates_push_whole_values_in_evaluation() -> None:
    x = torch.randn(2, 12, 3, dtype=torch.float64)
    soft = _leaky_stack(False).eval().trace(x, strengths=True)
    rounded = _leaky_stack(True).eval().trace(x, strengths=True)
    torch.testing.assert_close(soft.push, torch.full_like(soft.push, 0.9))
    assert rounded.push.eq(1).all() and rounded.pop.eq(0).all()
    assert rounded.strengths is not None and soft.strengths is not None
    steps = torch.arange(1, 13, dtype=torch.float64)
    # every value pushed stays whole; the soft stack's total is what leaks leave of it
    torch.testing.assert_close(rounded.strengths.sum(-1), steps.expand(2, -1))
    assert (soft.strengths.sum(-1) < 0.9 * steps).all()


def test_training_is_unchanged() -> None:
    x = torch.randn(2, 7, 3, dtype=torch.float64)
    soft, rounded = _leaky_stack(False).train(), _leaky_stack(True).train()
    torch.testing.assert_close(rounded(x), soft(x), rtol=0, atol=0)
    assert not torch.equal(rounded.eval()(x), soft.eval()(x))


@pytest.mark.parametrize("name", ["stack_lstm", "queue_lstm", "deque_lstm", "memory_rnn"])
def test_every_memory_model_takes_the_option(name: str) -> None:
    model = build_model(name, 5, 4, round_gates=True).eval()
    trace = model.trace(torch.randint(0, 5, (3, 6)))
    gates = [g for g in (trace.push, trace.pop, trace.push_bot, trace.pop_bot) if g is not None]
    assert all(((g == 0) | (g == 1)).all() for g in gates)
    with pytest.raises(ValueError, match="round_gates"):
        build_model(name, 5, 4, round_gates="yes")
