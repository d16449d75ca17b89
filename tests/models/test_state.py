"""Every recurrent model takes an initial state and streams, as nn.LSTM does: a sequence
run in chunks, each from the state the last one returned, gives the outputs of the whole
sequence; a detached state stops the gradient (truncated backpropagation)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch import Tensor, nn

from memrnn.models import build_model, model_names
from memrnn.models.state import detach_state

V, OUT, B, T = 5, 3, 3, 7


def _build(name: str, **options: Any) -> Callable[[], nn.Module]:
    def make() -> nn.Module:
        torch.manual_seed(0)
        return build_model(name, V, OUT, **options).double().eval()

    return make


SMALL = {"hidden_size": 6}
TRANSDUCER = {"hidden_size": 6, "embedding": 4, "memory_width": 3}
MODELS = {
    "lstm": _build("lstm", **SMALL, readout=4),
    "deep_lstm": _build("deep_lstm", hidden_size=6, embedding=4, layers=2),
    "stack_lstm": _build("stack_lstm", **TRANSDUCER),
    "queue_lstm": _build("queue_lstm", **TRANSDUCER),
    "deque_lstm": _build("deque_lstm", **TRANSDUCER),
    "memory_rnn": _build("memory_rnn", **SMALL, memory_width=3),
    "memory_rnn_lstm_deque": _build(
        "memory_rnn", **SMALL, memory_width=3, cell="lstm", memory="deque"
    ),
    "stack_rnn": _build("stack_rnn", **SMALL, stack_width=2, stack_depth=4),
    "stack_rnn_gru": _build("stack_rnn", **SMALL, stack_width=2, stack_depth=4, cell="gru"),
    "stack_rnn_lstm": _build("stack_rnn", **SMALL, stack_width=2, stack_depth=4, cell="lstm"),
    "fast_weights": _build("fast_weights", **SMALL, readout=4, inner_steps=2),
    "fast_weights_matrix": _build("fast_weights", **SMALL, readout=4, form="matrix"),
    "irnn": _build("irnn", **SMALL, readout=4),
    "alstm": _build("alstm", **SMALL, readout=4),
    "gru": _build("gru", **SMALL),
}
MEMORIES = ("stack_lstm", "queue_lstm", "deque_lstm", "memory_rnn", "memory_rnn_lstm_deque")


def _inputs(kind: str, steps: int = T, seed: int = 1) -> Tensor:
    gen = torch.Generator().manual_seed(seed)
    if kind == "tokens":
        return torch.randint(0, V, (B, steps), generator=gen)
    return torch.randn(B, steps, V, generator=gen, dtype=torch.float64)


def _chunked(model: nn.Module, x: Tensor, cuts: tuple[int, ...]) -> tuple[Tensor, Any]:
    state, outputs = None, []
    bounds = (0, *cuts, x.shape[1])
    for lo, hi in itertools.pairwise(bounds):
        out, state = model.stream(x[:, lo:hi], state)
        outputs.append(out)
    return torch.cat(outputs, dim=1), state


@pytest.mark.parametrize("kind", ["tokens", "vectors"])
@pytest.mark.parametrize("cuts", [(3,), (2, 5)], ids=["two", "three"])
@pytest.mark.parametrize("name", MODELS)
def test_chunks_carrying_the_state_equal_the_whole_sequence(
    name: str, cuts: tuple[int, ...], kind: str
) -> None:
    model = MODELS[name]()
    x = _inputs(kind)
    chunked, _ = _chunked(model, x, cuts)
    torch.testing.assert_close(chunked, model(x), rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", MEMORIES)
def test_a_memory_carried_over_many_chunks_grows_its_room(name: str) -> None:
    """Forty steps in chunks of 13 push more values than the first buffer holds."""
    model = MODELS[name]()
    x = _inputs("tokens", steps=40)
    chunked, state = _chunked(model, x, (13, 26, 39))
    torch.testing.assert_close(chunked, model(x), rtol=0, atol=1e-10)
    rows = 80 if "deque" in name else 40
    assert state.memory.size == rows


@pytest.mark.parametrize("name", MODELS)
def test_forward_is_the_outputs_of_stream_and_none_the_initial_state(name: str) -> None:
    model = MODELS[name]()
    x = _inputs("tokens")
    whole, state = model.stream(x)
    torch.testing.assert_close(model(x), whole, rtol=0, atol=1e-10)
    torch.testing.assert_close(model(x, model.initial_state(B)), whole, rtol=0, atol=1e-10)
    _, explicit = model.stream(x, model.initial_state(B))
    for a, b in zip(_tensors(explicit), _tensors(state), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-10)
    more = _inputs("tokens", seed=2)
    assert torch.equal(model(more, state), model.stream(more, state)[0])


def _tensors(state: Any) -> list[Tensor]:
    """Every tensor of a state, in a fixed order (a memory's by its strengths and values)."""
    if isinstance(state, Tensor):
        return [state]
    if isinstance(state, tuple):
        return list(state)
    found = []
    for value in vars(state).values():
        if isinstance(value, Tensor):
            found.append(value)
        elif hasattr(value, "strengths"):
            found += [value.strengths, value.values]
    return found


@pytest.mark.parametrize("name", MODELS)
def test_a_detached_state_stops_the_gradient_at_the_chunk(name: str) -> None:
    model = MODELS[name]()
    x = _inputs("vectors")
    first, second = (x[:, :3].clone().requires_grad_(), x[:, 3:].clone().requires_grad_())
    _, state = model.stream(first)
    out, _ = model.stream(second, detach_state(state))
    out.square().sum().backward()
    assert first.grad is None
    assert second.grad is not None and bool(second.grad.abs().sum() > 0)
    # without detaching, the second chunk's loss reaches the first chunk's inputs
    _, state = model.stream(first)
    model.stream(second, state)[0].square().sum().backward()
    assert first.grad is not None and bool(first.grad.abs().sum() > 0)


@pytest.mark.parametrize("name", MODELS)
def test_truncated_backpropagation_trains_chunk_by_chunk(name: str) -> None:
    model = MODELS[name]().train()
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = _inputs("tokens", steps=9)
    state = None
    for lo in (0, 3, 6):
        optimizer.zero_grad()
        out, state = model.stream(x[:, lo : lo + 3], state)
        loss = out.square().mean()
        loss.backward()
        optimizer.step()
        state = detach_state(state)
        assert bool(torch.isfinite(loss))
    assert any(not torch.equal(a, p) for a, p in zip(before, model.parameters(), strict=True))


@pytest.mark.parametrize("name", MODELS)
def test_detach_state_detaches_every_tensor(name: str) -> None:
    model = MODELS[name]()
    _, state = model.stream(_inputs("tokens"))
    assert any(t.requires_grad for t in _tensors(state))
    detached = detach_state(state)
    assert type(detached) is type(state)
    for a, b in zip(_tensors(detached), _tensors(state), strict=True):
        assert not a.requires_grad
        assert torch.equal(a, b)


def test_detach_state_takes_none_and_refuses_other_things() -> None:
    assert detach_state(None) is None
    with pytest.raises(TypeError, match=r"^state: expected a model's state, got str"):
        detach_state("h")


@pytest.mark.parametrize("name", MODELS)
def test_a_state_that_does_not_fit_is_refused_naming_it(name: str) -> None:
    model = MODELS[name]()
    x = _inputs("tokens")
    with pytest.raises(ValueError, match=r"^state: expected .*, got str"):
        model(x, "h")
    with pytest.raises(ValueError, match=r"^state[\w.\[\]]*: expected a tensor .*B.*got"):
        model(x, model.initial_state(B + 1))
    state = model.initial_state(B)  # float64
    with pytest.raises(ValueError, match=r"^state[\w.\[\]]*: torch.float64, but the model"):
        model.float()(x, state)


def test_a_state_of_another_cell_is_refused() -> None:
    elman, lstm = MODELS["memory_rnn"](), MODELS["memory_rnn_lstm_deque"]()
    x = _inputs("tokens")
    with pytest.raises(ValueError, match=r"^state\.c: an Elman cell has no c"):
        elman(x, lstm.initial_state(B))
    with pytest.raises(ValueError, match=r"^state: expected nn\.LSTM's"):
        MODELS["lstm"]()(x, (torch.zeros(1, B, 6, dtype=torch.float64),))


def test_every_recurrent_model_of_the_registry_streams() -> None:
    """The registry's promise: all but the Transformer and the deep stack machine."""
    for name in set(model_names()) - {"transformer", "deep_stack_machine"}:
        model = build_model(name, V, OUT, hidden_size=4)
        x = _inputs("tokens")
        out, state = model.stream(x)
        assert out.shape == (B, T, OUT)
        assert torch.equal(model(x[:, :2], state), model.stream(x[:, :2], state)[0])
        detach_state(model.initial_state(B))
