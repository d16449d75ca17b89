"""The whole-sequence operator (memrnn.models.controller.ops) under torch.compile: the
same numbers as eagerly, no graph break, one graph for every length."""

from __future__ import annotations

import pytest
import torch
import torch._dynamo
import torch.nn.functional as F
from torch import Tensor
from torch._dynamo.utils import counters

from memrnn.models.controller.fused import Shape
from memrnn.models.controller.ops import OPERATORS, MemoryRNNSequence, memory_rnn_sequence
from memrnn.models.transducer import MemoryAugmentedLSTM
from memrnn.structures.layout import Layout
from tests.models.autograd_graph import graph_nodes

MEMORIES = ["stack", "queue", "deque"]
needs_operators = pytest.mark.skipif(
    OPERATORS is None, reason="torch.library.custom_op: torch >= 2.4"
)


def _model(memory: str) -> MemoryAugmentedLSTM:
    torch.manual_seed(0)
    model = MemoryAugmentedLSTM(11, 9, memory=memory, hidden_size=6, memory_width=4,  # type: ignore[arg-type]
                                embedding=3)  # fmt: skip
    with torch.no_grad():  # larger weights: gates spread over (0, 1), pops reach deep
        for p in model.parameters():
            p.mul_(3)
    return model


def _loss(model: MemoryAugmentedLSTM, tokens: Tensor, targets: Tensor) -> Tensor:
    trace = model.trace(tokens)
    loss = F.cross_entropy(trace.outputs.flatten(0, 1), targets.flatten())
    return loss + (trace.push * trace.pop).mean()  # the gates' own gradients too


def _batch(length: int) -> tuple[Tensor, Tensor]:
    gen = torch.Generator().manual_seed(length)
    return torch.randint(0, 11, (3, length), generator=gen), torch.randint(
        0, 9, (3, length), generator=gen
    )


@needs_operators
@pytest.mark.parametrize("memory", MEMORIES)
def test_compiled_loss_and_gradients_are_the_eager_ones(memory: str) -> None:
    model = _model(memory)
    data = _batch(7)
    _loss(model, *data).backward()
    eager = {k: p.grad.clone() for k, p in model.named_parameters() if p.grad is not None}
    model.zero_grad()
    torch._dynamo.reset()
    compiled = torch.compile(lambda *d: _loss(model, *d), backend="aot_eager", fullgraph=True)
    loss = compiled(*data)
    loss.backward()
    torch.testing.assert_close(loss, _loss(model, *data), rtol=1e-6, atol=1e-7)
    for k, p in model.named_parameters():
        assert p.grad is not None, k
        torch.testing.assert_close(p.grad, eager[k], rtol=1e-5, atol=1e-7, msg=k)


@needs_operators
def test_no_graph_break_and_one_graph_for_every_length() -> None:
    model = _model("stack")
    torch._dynamo.reset()
    explained = torch._dynamo.explain(lambda *d: _loss(model, *d))(*_batch(5))
    assert explained.graph_break_count == 0
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(lambda *d: _loss(model, *d), backend="eager", dynamic=True)
    for length in (5, 8, 13):
        compiled(*_batch(length)).backward()
    assert counters["stats"]["unique_graphs"] == 1


@needs_operators
def test_a_bad_token_id_is_caught_without_a_graph_break() -> None:
    model = _model("stack")
    tokens, targets = _batch(5)
    tokens[1, 2] = 11
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 10"):
        _loss(model, tokens, targets)
    torch._dynamo.reset()
    compiled = torch.compile(lambda *d: _loss(model, *d), backend="aot_eager", fullgraph=True)
    with pytest.raises(RuntimeError, match=r"ids must lie in 0 \.\. 10"):
        compiled(tokens, targets)


def _operator_args(memory: str, final: bool) -> tuple[object, ...]:
    """Random inputs of the forward operator in float64, from a carried state where
    ``final``."""
    gen = torch.Generator().manual_seed(0)
    b, t_len, hid, m, e = 2, 4, 3, 2, 2 if memory == "deque" else 1
    start = 2 if final else 0
    n0 = e * start

    def rand(*size: int, grad: bool = True) -> Tensor:
        return torch.randn(*size, generator=gen, dtype=torch.float64).requires_grad_(grad)

    return (rand(b, t_len, 4 * hid), rand(b, hid), rand(b, hid), rand(4 * hid, e * m + hid),
            None, None, rand(e * m + 2 * e, hid), rand(e * m + 2 * e),
            rand(b, t_len, 2 * e, grad=False),
            rand(b, e * m) if final else None,
            torch.rand(b, n0, generator=gen, dtype=torch.float64) if final else None,
            rand(b, n0, m) if final else None,
            memory, start, hid, m, True, final, False)  # fmt: skip


CASES = [("stack", False), ("deque", True)]


@needs_operators
@pytest.mark.parametrize(("memory", "final"), CASES)
def test_the_operator_registration(memory: str, final: bool) -> None:
    """Schema, fake tensors, autograd and AOT dispatch of the forward operator
    (``torch.library.opcheck``), from a carried state where ``final``."""
    assert OPERATORS is not None
    torch.library.opcheck(OPERATORS[0], _operator_args(memory, final))


@needs_operators
@pytest.mark.parametrize(("memory", "final"), CASES)
def test_the_autograd_function_of_an_older_torch_is_the_operator(memory: str, final: bool) -> None:
    """``MemoryRNNSequence`` (what runs under torch < 2.4) gives the operator's outputs
    and gradients, bit for bit."""
    assert OPERATORS is not None
    results = []
    for run in (OPERATORS[0], MemoryRNNSequence.apply):
        args = _operator_args(memory, final)
        inputs = [a for a in args if isinstance(a, Tensor) and a.requires_grad]
        outputs = [o for o in run(*args) if o.numel()]
        gen = torch.Generator().manual_seed(1)
        loss = sum((o * torch.randn(o.shape, generator=gen, dtype=o.dtype)).sum() for o in outputs)
        grads = torch.autograd.grad(loss, inputs, allow_unused=True)
        results.append((outputs, grads))
    (op_out, op_grads), (fn_out, fn_grads) = results
    for a, b in zip(op_out, fn_out, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    for a, b in zip(op_grads, fn_grads, strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_the_sequence_is_one_node() -> None:
    b, t_len, hid, m = 2, 3, 3, 2
    xw = torch.randn(b, t_len, 4 * hid, requires_grad=True)
    shape = Shape(Layout("stack", t_len), hid, m, lstm=True)
    out = memory_rnn_sequence(xw, torch.zeros(b, hid), torch.zeros(b, hid),
                              torch.randn(4 * hid, m + hid), None, None,
                              torch.randn(m + 2, hid), torch.zeros(m + 2), None, shape)  # fmt: skip
    o_prime, push, pop, strengths = out
    assert o_prime is not None and push is not None and pop is not None
    assert strengths is not None and not strengths.requires_grad
    assert o_prime.grad_fn is not None and push.grad_fn is not None


def test_eagerly_the_autograd_function_runs() -> None:
    """Eagerly a sequence is ``MemoryRNNSequence``, which skips the operators' dispatch
    (``test_the_autograd_function_of_an_older_torch_is_the_operator``: the same numbers
    bit for bit); under compile the operator runs."""
    trace = _model("stack").trace(_batch(6)[0])
    names = {type(node).__name__ for node in graph_nodes(trace.outputs)}
    assert "MemoryRNNSequenceBackward" in names, names
    assert not any("memory_rnn" in name for name in names), names
