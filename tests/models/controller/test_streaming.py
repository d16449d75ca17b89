"""A stream through the whole-sequence node (``MemoryRNN.stream``): a memory carried in
from an earlier chunk, and the state after the last step, with gradients both ways."""

from __future__ import annotations

import itertools

import pytest
import torch

from memrnn.models.controller import MemoryRNN
from memrnn.models.controller.fused import Shape
from memrnn.models.controller.ops import memory_rnn_sequence
from memrnn.structures.layout import Layout

CASES = list(itertools.product(("stack", "queue", "deque"), ("lstm", "rnn"), (True, False)))
F64 = torch.float64


def _model(memory: str, cell: str, o_prime: bool) -> MemoryRNN:
    torch.manual_seed(0)
    model = MemoryRNN(5, 7, 6, 4, memory=memory, cell=cell, o_prime_layer=o_prime,  # type: ignore[arg-type]
                      pop_bias=-0.5).double()  # fmt: skip
    with torch.no_grad():  # larger weights: gates spread over (0, 1), pops reach deep
        for p in model.parameters():
            p.mul_(3)
    return model


def _streamed(model: MemoryRNN, x: torch.Tensor, noise: torch.Tensor, stepwise: bool) -> dict:
    """Outputs, final state and every gradient of a loss on three chunks, the state carried
    (not detached) from each to the next."""
    model.zero_grad()
    x = x.clone().requires_grad_()
    state, outputs = None, []
    for lo, hi in ((0, 4), (4, 9), (9, 13)):
        out, state = model.stream(x[:, lo:hi], state, stepwise=stepwise,
                                  gate_noise=noise[:, lo:hi])  # fmt: skip
        outputs.append(out)
    assert state is not None
    loss = (torch.cat(outputs, 1) ** 2).sum() + state.h.sum() + state.read.square().sum()
    loss = loss + (state.memory.strengths * torch.arange(state.memory.size)).sum()
    loss.backward()
    found = {f"grad {k}": p.grad for k, p in model.named_parameters() if p.grad is not None}
    memory = state.memory
    return found | {"outputs": torch.cat(outputs, 1), "grad x": x.grad, "h": state.h,
                    "c": state.c, "read": state.read, "strengths": memory.strengths,
                    "values": memory.values}  # fmt: skip


@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
def test_fused_stream_matches_the_stepwise_one(memory: str, cell: str, o_prime: bool) -> None:
    model = _model(memory, cell, o_prime).train()
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(3, 13, 5, dtype=F64, generator=gen)
    noise = 0.5 * torch.randn(3, 13, 4 if memory == "deque" else 2, dtype=F64, generator=gen)
    fast, slow = _streamed(model, x, noise, False), _streamed(model, x, noise, True)
    assert fast.keys() == slow.keys()
    for k in fast:
        if fast[k] is None:
            assert slow[k] is None, k
            continue
        torch.testing.assert_close(fast[k], slow[k], rtol=1e-9, atol=1e-11, msg=k)


@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
def test_gradcheck_with_a_carried_state(memory: str, cell: str, o_prime: bool) -> None:
    model = _model(memory, cell, o_prime)
    b, t_len, carried, hid, m = 2, 4, 3, model.hidden_size, model.memory_width
    e = 2 if memory == "deque" else 1
    n0 = e * carried
    gen = torch.Generator().manual_seed(3)

    def rand(*size: int) -> torch.Tensor:
        return torch.randn(*size, dtype=F64, generator=gen).requires_grad_()

    g, q = (4 if cell == "lstm" else 1) * hid, e * (m + 2)
    inputs = [rand(b, t_len, g), rand(b, hid), rand(b, hid) if cell == "lstm" else None,
              rand(g, e * m + hid), rand(hid, hid) if o_prime else None,
              rand(hid) if o_prime else None, rand(q, hid), rand(q)]  # fmt: skip
    # strengths in (0.1, 0.6): away from the kinks of max and min, where gradcheck's
    # finite differences straddle a corner
    s0 = (0.1 + 0.5 * torch.rand(b, n0, dtype=F64, generator=gen)).requires_grad_()
    carry = [rand(b, e * m), s0, rand(b, n0, m)]
    layout = Layout(memory, t_len, carried)  # type: ignore[arg-type]
    shape = Shape(layout, hid, m, lstm=cell == "lstm", final=True)

    def f(*args: torch.Tensor | None) -> tuple[torch.Tensor, ...]:
        out = memory_rnn_sequence(*args[:8], None, shape, *args[8:])
        return tuple(x for i, x in enumerate(out) if i != 3 and x is not None)

    assert torch.autograd.gradcheck(f, (*inputs, *carry), eps=1e-6, atol=1e-6, fast_mode=True)


@pytest.mark.parametrize("kind", ["stack", "queue", "deque"])
def test_a_layout_after_carried_steps_is_the_tail_of_the_whole_run(kind: str) -> None:
    whole, tail = Layout(kind, 9), Layout(kind, 5, start=4)  # type: ignore[arg-type]
    assert tail.rows == whole.rows
    for t in range(5):
        assert tail.push_rows(t) == whole.push_rows(4 + t)
        assert tail.window(t) == whole.window(4 + t)
    lo, hi = tail.carried
    assert (lo, hi) == whole.window(3)
    assert Layout(kind, 9).carried[0] == Layout(kind, 9).carried[1]  # type: ignore[arg-type]


@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
def test_the_two_paths_continue_each_other(memory: str) -> None:
    """A state from either path continues on the other: the memory's rows convert."""
    model = _model(memory, "lstm", False)
    x = torch.randn(2, 12, 5, dtype=F64, generator=torch.Generator().manual_seed(6))
    whole = model(x)
    for first, second in ((True, False), (False, True)):
        a, state = model.stream(x[:, :5], stepwise=first)
        b, state = model.stream(x[:, 5:], state, stepwise=second)
        torch.testing.assert_close(torch.cat([a, b], 1), whole, rtol=1e-10, atol=1e-12)
        c, _ = model.stream(x[:, :3], state, stepwise=first)  # and back again
        assert c.shape == (2, 3, 7)
