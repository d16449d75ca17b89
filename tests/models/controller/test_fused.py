"""The whole-sequence path of MemoryRNN (memrnn.models.controller.fused) against the
per-step one."""

from __future__ import annotations

import itertools

import pytest
import torch

from memrnn.models.controller import MemoryRNN
from memrnn.models.controller.fused import Shape
from memrnn.models.controller.ops import memory_rnn_sequence
from memrnn.structures.layout import Layout

CASES = list(itertools.product(("stack", "queue", "deque"), ("lstm", "rnn"), (True, False)))


def _model(memory: str, cell: str, o_prime: bool, seed: int = 0) -> MemoryRNN:
    torch.manual_seed(seed)
    model = MemoryRNN(5, 7, 6, 4, memory=memory, cell=cell, o_prime_layer=o_prime,  # type: ignore[arg-type]
                      pop_bias=-0.5).double()  # fmt: skip
    with torch.no_grad():  # larger weights: gates spread over (0, 1), pops reach deep
        for p in model.parameters():
            p.mul_(3)
    return model


def _run(model: MemoryRNN, x: torch.Tensor, stepwise: bool) -> tuple[dict, dict]:
    model.zero_grad()
    out = model.trace(x, strengths=True, stepwise=stepwise)
    t = torch.arange(x.shape[1], dtype=x.dtype, device=x.device)
    loss = (out.outputs**2).sum() + (out.push * t).sum() + 0.3 * out.pop.sum()
    if out.push_bot is not None and out.pop_bot is not None:
        loss = loss + (0.7 * out.push_bot).sum() + (out.pop_bot**2).sum()
    loss.backward()
    fields = ("outputs", "push", "pop", "push_bot", "pop_bot", "strengths")
    values = {k: getattr(out, k) for k in fields if getattr(out, k) is not None}
    grads = {k: p.grad.clone() for k, p in model.named_parameters() if p.grad is not None}
    return values, grads


@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_same_outputs_and_gradients_as_stepwise(memory: str, cell: str, o_prime: bool,
                                                seed: int) -> None:  # fmt: skip
    model = _model(memory, cell, o_prime, seed)
    x = torch.randn(3, 11, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    fast, fast_grads = _run(model, x, stepwise=False)
    slow, slow_grads = _run(model, x, stepwise=True)
    assert fast.keys() == slow.keys()
    for k in fast:
        torch.testing.assert_close(fast[k], slow[k], rtol=1e-10, atol=1e-12, msg=k)
    assert fast_grads.keys() == slow_grads.keys()
    for k in fast_grads:
        torch.testing.assert_close(fast_grads[k], slow_grads[k], rtol=1e-9, atol=1e-11, msg=k)


@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
def test_float32_matches_stepwise(memory: str) -> None:
    torch.manual_seed(2)
    model = MemoryRNN(8, 5, 16, 8, memory=memory, cell="lstm", o_prime_layer=False,  # type: ignore[arg-type]
                      pop_bias=-1.0)  # fmt: skip
    x = torch.randn(4, 40, 8)
    fast, fast_grads = _run(model, x, stepwise=False)
    slow, slow_grads = _run(model, x, stepwise=True)
    for k in fast:
        torch.testing.assert_close(fast[k], slow[k], rtol=1e-4, atol=1e-5, msg=k)
    for k in fast_grads:
        torch.testing.assert_close(fast_grads[k], slow_grads[k], rtol=1e-3, atol=1e-4, msg=k)


@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
def test_gradcheck(memory: str, cell: str, o_prime: bool) -> None:
    model = _model(memory, cell, o_prime)
    b, t_len, hid, m = 2, 5, model.hidden_size, model.memory_width
    e = 2 if memory == "deque" else 1
    gen = torch.Generator().manual_seed(3)

    def rand(*size: int) -> torch.Tensor:
        return torch.randn(*size, dtype=torch.float64, generator=gen).requires_grad_()

    g = 4 * hid if cell == "lstm" else hid
    q = e * m + 2 * e
    inputs = [
        rand(b, t_len, g),
        rand(b, hid),
        rand(b, hid) if cell == "lstm" else None,
        rand(g, e * m + hid),
        rand(hid, hid) if o_prime else None,
        rand(hid) if o_prime else None,
        rand(q, hid),
        rand(q),
    ]
    shape = Shape(Layout(memory, t_len), hid, m, lstm=cell == "lstm")  # type: ignore[arg-type]
    noise = torch.randn(b, t_len, 2 * e, dtype=torch.float64, generator=gen)

    def f(*args: torch.Tensor | None) -> tuple[torch.Tensor, ...]:
        return memory_rnn_sequence(*args, noise, shape)[:3]  # type: ignore[no-any-return]

    assert torch.autograd.gradcheck(f, tuple(inputs), eps=1e-6, atol=1e-6, fast_mode=True)


@pytest.mark.gpu
@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
def test_cuda_matches_cpu_stepwise(memory: str) -> None:
    model = _model(memory, "lstm", False)
    x = torch.randn(3, 30, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    slow, slow_grads = _run(model, x, stepwise=True)
    fast, fast_grads = _run(model.cuda(), x.cuda(), stepwise=False)
    for k in fast:
        torch.testing.assert_close(fast[k].cpu(), slow[k], rtol=1e-9, atol=1e-11, msg=k)
    for k in fast_grads:
        torch.testing.assert_close(fast_grads[k].cpu(), slow_grads[k], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("memory", ["stack", "deque"])
def test_gate_noise_same_in_both_paths(memory: str) -> None:
    model = _model(memory, "lstm", False)
    e = 2 if memory == "deque" else 1
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(3, 9, 5, dtype=torch.float64, generator=gen)
    noise = torch.randn(3, 9, 2 * e, dtype=torch.float64, generator=gen)
    results = []
    for stepwise in (False, True):
        model.zero_grad()
        out = model.trace(x, stepwise=stepwise, gate_noise=noise)
        out.outputs.square().sum().backward()
        results.append((out, [p.grad.clone() for p in model.parameters()]))
    (fast, fast_grads), (slow, slow_grads) = results
    torch.testing.assert_close(fast.outputs, slow.outputs, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(fast.push, slow.push, rtol=1e-10, atol=1e-12)
    for a, b in zip(fast_grads, slow_grads, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-11)
    # The noise moves the gates: pushes differ from a noiseless run.
    assert not torch.allclose(fast.push, model.trace(x).push)


def test_gate_noise_only_in_training_mode() -> None:
    torch.manual_seed(7)
    model = MemoryRNN(5, 7, 6, 4, memory="stack", cell="lstm", gate_noise=2.0)
    x = torch.randn(2, 8, 5)
    model.eval()
    torch.testing.assert_close(model(x), model(x))
    model.train()
    assert not torch.allclose(model.trace(x).push, model.trace(x).push)
    with pytest.raises(ValueError, match="gate_noise"):
        MemoryRNN(5, 7, 6, 4, gate_noise=-1.0)
    with pytest.raises(ValueError, match="gate_noise"):
        model(x, gate_noise=torch.zeros(2, 8, 3))


@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_gates_same_gradients_as_stepwise(memory: str, cell: str, o_prime: bool,
                                                seed: int) -> None:  # fmt: skip
    """Gates forced to exactly 0 or 1 (pre-activations of -+1000) on a third of the steps
    each: the fused backward takes the kinks' derivatives as autograd through ``step``."""
    model = _model(memory, cell, o_prime, seed)
    e = 2 if memory == "deque" else 1
    gen = torch.Generator().manual_seed(10 + seed)
    x = torch.randn(3, 12, 5, dtype=torch.float64, generator=gen)
    noise = 1000.0 * (torch.randint(0, 3, (3, 12, 2 * e), generator=gen) - 1).double()
    results = []
    for stepwise in (False, True):
        model.zero_grad()
        out = model.trace(x, stepwise=stepwise, gate_noise=noise)
        out.outputs.square().sum().backward()
        results.append((out, {k: p.grad.clone() for k, p in model.named_parameters()}))
    (fast, fast_grads), (slow, slow_grads) = results
    assert ((fast.push == 0) | (fast.push == 1)).float().mean() > 0.5
    torch.testing.assert_close(fast.outputs, slow.outputs, rtol=1e-10, atol=1e-12)
    for k in fast_grads:
        torch.testing.assert_close(fast_grads[k], slow_grads[k], rtol=1e-9, atol=1e-11, msg=k)


@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
def test_gradcheck_members(memory: str, cell: str, o_prime: bool) -> None:
    """K = 2 controllers at once: every weight stacked (2, ...), rows member-major."""
    k, b, t_len, hid, m = 2, 2, 4, 3, 2
    e = 2 if memory == "deque" else 1
    gen = torch.Generator().manual_seed(4)

    def rand(*size: int) -> torch.Tensor:
        return (2 * torch.randn(*size, dtype=torch.float64, generator=gen)).requires_grad_()

    g = 4 * hid if cell == "lstm" else hid
    q = e * m + 2 * e
    inputs = [
        rand(k * b, t_len, g),
        rand(k * b, hid),
        rand(k * b, hid) if cell == "lstm" else None,
        rand(k, g, e * m + hid),
        rand(k, hid, hid) if o_prime else None,
        rand(k, hid) if o_prime else None,
        rand(k, q, hid),
        rand(k, q),
    ]
    shape = Shape(Layout(memory, t_len), hid, m, lstm=cell == "lstm")  # type: ignore[arg-type]
    noise = torch.randn(k * b, t_len, 2 * e, dtype=torch.float64, generator=gen)

    def f(*args: torch.Tensor | None) -> tuple[torch.Tensor, ...]:
        return memory_rnn_sequence(*args, noise, shape)[:3]  # type: ignore[no-any-return]

    assert torch.autograd.gradcheck(f, tuple(inputs), eps=1e-6, atol=1e-6, fast_mode=True)
