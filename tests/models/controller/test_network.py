"""The memory-augmented RNN controller: shapes, wiring, initialisation and learning."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.models import MemoryRNN, Trace
from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack
from memrnn.tasks import ReversalTask

MEMORIES = ["stack", "queue", "deque"]
CELLS = ["rnn", "lstm"]
COMBOS = list(itertools.product(MEMORIES, CELLS))


def _model(memory: str = "stack", cell: str = "rnn", **kwargs: float) -> MemoryRNN:
    torch.manual_seed(0)
    return MemoryRNN(5, 3, 7, 4, memory=memory, cell=cell, **kwargs)  # type: ignore[arg-type]


def _inputs(batch: int = 2, steps: int = 6, size: int = 5, seed: int = 1) -> Tensor:
    return torch.randn(batch, steps, size, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize(("memory", "cell"), COMBOS)
def test_output_shapes(memory: str, cell: str) -> None:
    model, x = _model(memory, cell), _inputs(3, 6)
    out = model.trace(x)
    assert isinstance(out, Trace) and out.strengths is None
    assert out.outputs.shape == (3, 6, 3)
    assert torch.equal(model(x), out.outputs)
    assert out.push.shape == (3, 6) and out.pop.shape == (3, 6)
    if memory == "deque":
        assert out.push_bot is not None and out.pop_bot is not None
        assert out.push_bot.shape == (3, 6) and out.pop_bot.shape == (3, 6)
    else:
        assert out.push_bot is None and out.pop_bot is None
    for gate in (out.push, out.pop):
        assert torch.all((gate > 0) & (gate < 1))


@pytest.mark.parametrize(("memory", "cell"), COMBOS)
def test_cell_and_memory_types(memory: str, cell: str) -> None:
    model = _model(memory, cell)
    want_memory = {"stack": NeuralStack, "queue": NeuralQueue, "deque": NeuralDeque}[memory]
    assert type(model.memory) is want_memory
    assert isinstance(model.cell, nn.LSTMCell if cell == "lstm" else nn.RNNCell)
    reads = 2 if memory == "deque" else 1
    assert model.cell.input_size == 5 + reads * 4  # i_t concatenated with r_{t-1}
    assert model.cell.hidden_size == 7


def test_output_hidden_size() -> None:
    assert _model().o_prime.out_features == 7
    model = MemoryRNN(5, 3, 7, 4, output_hidden=11)
    assert model.o_prime.out_features == 11
    assert model.out.in_features == 11 and model.top.value.in_features == 11
    assert model(_inputs()).shape == (2, 6, 3)


@pytest.mark.parametrize(("memory", "cell"), COMBOS)
def test_gradients_reach_every_parameter(memory: str, cell: str) -> None:
    model = _model(memory, cell)
    out = model(_inputs(2, 6))
    (out**2).sum().backward()
    for name, param in model.named_parameters():
        assert param.grad is not None, name
        assert param.grad.abs().sum() > 0, name


@pytest.mark.parametrize("memory", MEMORIES)
@pytest.mark.parametrize(("push_bias", "pop_bias"), [(0.0, 0.0), (1.0, -1.0), (0.5, -3.0)])
def test_gate_biases_initialised(memory: str, push_bias: float, pop_bias: float) -> None:
    model = _model(memory, push_bias=push_bias, pop_bias=pop_bias)
    ends = [model.top] if model.bot is None else [model.top, model.bot]
    assert len(ends) == (2 if memory == "deque" else 1)
    for end in ends:
        torch.testing.assert_close(end.push.bias, torch.tensor([push_bias]))
        torch.testing.assert_close(end.pop.bias, torch.tensor([pop_bias]))


def test_deque_bottom_push_bias() -> None:
    model = _model("deque", push_bias=1.0, bottom_push_bias=-2.0)
    assert model.bot is not None
    torch.testing.assert_close(model.top.push.bias, torch.tensor([1.0]))
    torch.testing.assert_close(model.bot.push.bias, torch.tensor([-2.0]))
    torch.testing.assert_close(model.bot.pop.bias, model.top.pop.bias)


def test_gate_biases_shift_the_gates() -> None:
    x = _inputs(4, 5)
    low = _model(pop_bias=-4.0).trace(x).pop
    high = _model(pop_bias=4.0).trace(x).pop
    assert low.max() < 0.2 and high.min() > 0.8


@pytest.mark.parametrize("cell", CELLS)
def test_initial_state_is_learned(cell: str) -> None:
    model = _model(cell=cell)
    learned = {"h0"} | ({"c0"} if cell == "lstm" else set())
    names = {name for name, _ in model.named_parameters()}
    assert learned <= names
    x = _inputs()
    before = model(x).detach()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    model(x).sum().backward()
    old = {name: getattr(model, name).detach().clone() for name in learned}
    opt.step()
    for name in learned:
        assert not torch.equal(getattr(model, name), old[name]), name
    # And the initial state matters to the output.
    with torch.no_grad():
        model.load_state_dict(_model(cell=cell).state_dict())
        model.h0.fill_(0.9)
    assert not torch.allclose(model(x), before)


class _Recorder:
    """Records the controller cell's inputs and the (top, bottom) value projections.

    Module hooks fire on the per-step path (``stepwise=True``); the whole-sequence path
    computes the same numbers (tests/models/controller/test_fused.py)."""

    def __init__(self, model: MemoryRNN) -> None:
        self.cell_inputs: list[Tensor] = []
        self.values: dict[str, list[Tensor]] = {"top": [], "bot": []}
        model.cell.register_forward_hook(lambda _m, args, _o: self.cell_inputs.append(args[0]))
        ends = {"top": model.top, "bot": model.bot}
        for end, gates in ends.items():
            if gates is not None:
                gates.value.register_forward_hook(self._value_hook(end))

    def _value_hook(self, end: str) -> Callable[[nn.Module, tuple[Tensor], Tensor], None]:
        # The projection's output is pre-activation; v_t = tanh of it.
        return lambda _m, _args, out: self.values[end].append(torch.tanh(out))

    def reads(self, input_size: int) -> Tensor:
        """r_{t-1} as the cell saw it at each step t: (B, T, reads * width)."""
        return torch.stack(self.cell_inputs, dim=1)[..., input_size:]

    def value_seq(self, end: str) -> Tensor:
        return torch.stack(self.values[end], dim=1)


@pytest.mark.parametrize(("memory", "cell"), COMBOS)
def test_cell_sees_the_memory_reads(memory: str, cell: str) -> None:
    # The read fed back at step t+1 is what the memory returns for the controller's own
    # values, pushes and pops up to step t; r_0 is zero.
    model = _model(memory, cell)
    rec = _Recorder(model)
    with torch.no_grad():
        out = model.trace(_inputs(3, 7), stepwise=True)
    seen = rec.reads(5)
    torch.testing.assert_close(seen[:, 0], torch.zeros(3, seen.shape[-1]))
    if memory == "deque":
        assert out.push_bot is not None and out.pop_bot is not None
        top, bot = NeuralDeque().run(
            rec.value_seq("top"), rec.value_seq("bot"), out.push, out.push_bot, out.pop,
            out.pop_bot,
        )  # fmt: skip
        want = torch.cat([top, bot], dim=-1)
    else:
        memory_cls = NeuralStack if memory == "stack" else NeuralQueue
        want = memory_cls().run(rec.value_seq("top"), out.push, out.pop)
    torch.testing.assert_close(seen[:, 1:], want[:, :-1])
    assert want.abs().max() > 1e-3  # the check is not vacuous


def _force_gates(model: MemoryRNN, push_bias: float, pop_bias: float) -> None:
    ends = [model.top] if model.bot is None else [model.top, model.bot]
    with torch.no_grad():
        for end in ends:
            end.push.weight.zero_()
            end.pop.weight.zero_()
            end.push.bias.fill_(push_bias)
            end.pop.bias.fill_(pop_bias)


@pytest.mark.parametrize("memory", ["stack", "queue"])
def test_classical_behaviour_with_saturated_gates(memory: str) -> None:
    # Push ~1 and pop ~0 at every step: a stack then reads the value pushed last, a queue
    # the value pushed first. The two differ, so this tells the wiring of the two apart.
    model = _model(memory)
    _force_gates(model, push_bias=30.0, pop_bias=-30.0)
    rec = _Recorder(model)
    with torch.no_grad():
        model(_inputs(2, 5), stepwise=True)
    seen, values = rec.reads(5)[:, 1:], rec.value_seq("top")[:, :-1]
    want = values if memory == "stack" else values[:, :1].expand_as(values)
    torch.testing.assert_close(seen, want)
    assert not torch.allclose(values[:, -1], values[:, 0], atol=1e-3)


def test_stack_stays_empty_without_pushes() -> None:
    # Push ~0 and pop ~1 at every step: nothing is ever stored, so every read is zero.
    model = _model("stack")
    _force_gates(model, push_bias=-30.0, pop_bias=30.0)
    rec = _Recorder(model)
    with torch.no_grad():
        model(_inputs(2, 5), stepwise=True)
    torch.testing.assert_close(rec.reads(5), torch.zeros(2, 5, 4))


def test_deque_ends_with_saturated_gates() -> None:
    model = _model("deque")
    _force_gates(model, push_bias=30.0, pop_bias=-30.0)
    rec = _Recorder(model)
    with torch.no_grad():
        model(_inputs(2, 5), stepwise=True)
    seen = rec.reads(5)[:, 1:]
    torch.testing.assert_close(seen[..., :4], rec.value_seq("top")[:, :-1])
    torch.testing.assert_close(seen[..., 4:], rec.value_seq("bot")[:, :-1])


@pytest.mark.parametrize(("memory", "cell"), [("stack", "rnn"), ("deque", "lstm")])
def test_batch_elements_are_independent(memory: str, cell: str) -> None:
    model = _model(memory, cell)
    x = _inputs(3, 5)
    with torch.no_grad():
        whole = model(x)
        parts = torch.cat([model(x[i : i + 1]) for i in range(3)])
    torch.testing.assert_close(whole, parts)


def test_empty_sequence() -> None:
    out = _model("deque").trace(torch.zeros(2, 0, 5))
    assert out.outputs.shape == (2, 0, 3) and out.push.shape == (2, 0)
    assert out.push_bot is not None and out.push_bot.shape == (2, 0)


def test_float64() -> None:
    model = _model().double()
    out = model.trace(_inputs().double())
    assert out.outputs.dtype == torch.float64 and out.push.dtype == torch.float64


def test_token_ids_read_as_one_hot_vectors() -> None:
    model = _model("deque", "lstm")
    tokens = torch.tensor([[0, 4, 2, 2], [1, 3, 0, 4]])
    vectors = F.one_hot(tokens, 5).float()
    assert torch.equal(model(tokens), model(vectors))
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 4"):
        model(tokens + 1)


def test_inputs_are_not_silently_converted() -> None:
    with pytest.raises(
        ValueError, match=r"inputs: torch\.float32 on cpu, but the model is torch\.float64"
    ):
        _model().double()(_inputs())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"memory": "tape"}, "memory"),
        ({"cell": "gru"}, "cell"),
        ({"hidden_size": 0}, "hidden_size"),
        ({"memory_width": -1}, "memory_width"),
        ({"input_size": 0}, "input_size"),
        ({"output_size": 2.0}, "output_size"),
        ({"output_hidden": 0}, "output_hidden"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"input_size": 5, "output_size": 3, "hidden_size": 7}
    args["memory_width"] = 4
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        MemoryRNN(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [torch.zeros(2, 5), torch.zeros(2, 3, 4), torch.zeros(1, 2, 3, 5)])
def test_bad_inputs(bad: Tensor) -> None:
    with pytest.raises(ValueError, match="inputs"):
        _model()(bad)


def _train_reversal(seed: int, steps: int) -> tuple[float, float]:
    """Train a small stack-RNN with the pop-bias init on lengths 2-3; evaluate on both.

    Returns (token accuracy, fraction of sequences fully right), averaged over the two
    lengths, on 200 fresh sequences of each.
    """
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    task = ReversalTask(2)
    model = MemoryRNN(task.input_size, task.output_size, 8, 2, push_bias=1.0, pop_bias=-1.0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        batch = task.sample(rng, 32, int(rng.integers(2, 4)))
        logits = model(batch.inputs)
        loss = F.cross_entropy(logits.flatten(0, 1), batch.targets.flatten())
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    eval_rng = np.random.default_rng(1000 + seed)
    tokens, sequences = [], []
    with torch.no_grad():
        for length in (2, 3):
            batch = task.sample(eval_rng, 200, length)
            token, sequence = task.accuracy(model(batch.inputs), batch)
            tokens.append(token)
            sequences.append(sequence)
    return float(np.mean(tokens)), float(np.mean(sequences))


def test_learns_to_reverse_short_sequences() -> None:
    # 300 Adam steps reached 100% on seeds 0 to 4 in 1.5-3 s each on one thread;
    # an untrained model scores about 50% per token.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        start = time.perf_counter()
        token, sequence = _train_reversal(seed=0, steps=300)
        elapsed = time.perf_counter() - start
    finally:
        torch.set_num_threads(threads)
    assert token >= 0.98 and sequence >= 0.95, (token, sequence)
    assert elapsed < 60, elapsed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"push_bias": float("nan")}, "push_bias: expected a finite number, got nan"),
        ({"pop_bias": float("-inf")}, "pop_bias: expected a finite number, got -inf"),
        ({"bottom_push_bias": float("nan"), "memory": "deque"}, "bottom_push_bias: expected"),
        ({"o_prime_layer": "no"}, "o_prime_layer: expected True or False, got 'no'"),
        ({"o_prime_layer": 1}, "o_prime_layer: expected True or False, got 1"),
    ],
)
def test_bad_biases_and_switches_are_named(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        MemoryRNN(5, 3, 7, 4, **kwargs)  # type: ignore[arg-type]


def test_a_step_names_a_bad_input() -> None:
    model = _model()
    carry = model.start(2, 3)
    with pytest.raises(ValueError, match=re.escape("x: expected shape (B, 5), got (2, 4)")):
        model.step(carry, torch.zeros(2, 4))
