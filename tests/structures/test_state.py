"""States are immutable values; pushed values are written once into a shared buffer."""

from __future__ import annotations

import pytest
import torch

from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack
from tests.structures.helpers import F64, random_deque, random_one_ended, run_by_steps


def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(3)


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
def test_values_are_written_in_place_without_copies(memory: NeuralStack) -> None:
    values, push, pop = random_one_ended(_gen(), 2, 40, 3)
    state = memory.initial_state(2, 3, dtype=F64, capacity=40)
    storage = state.buffer.data
    for t in range(40):
        _, state = memory.step(state, values[:, t], push[:, t], pop[:, t])
        assert state.buffer.data is storage
    torch.testing.assert_close(state.values, values)


def test_buffer_grows_when_full() -> None:
    stack = NeuralStack()
    values, push, pop = random_one_ended(_gen(), 1, 100, 2)
    state = stack.initial_state(1, 2, dtype=F64)
    capacities = set()
    for t in range(100):
        _, state = stack.step(state, values[:, t], push[:, t], pop[:, t])
        capacities.add(state.buffer.data.shape[1])
    assert len(capacities) > 1  # grew
    assert max(capacities) < 400  # by doubling, not per step
    torch.testing.assert_close(state.values, values)


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
def test_stepping_a_state_twice_branches(memory: NeuralStack) -> None:
    """Two continuations of one prefix must each equal a fresh run of their own sequence."""
    gen = _gen()
    prefix = random_one_ended(gen, 2, 10, 3)
    branch_a = random_one_ended(gen, 2, 10, 3)
    branch_b = random_one_ended(gen, 2, 10, 3)
    state = memory.initial_state(2, 3, dtype=F64)
    for t in range(10):
        _, state = memory.step(state, *(x[:, t] for x in prefix))
    fork = state
    strengths_before, values_before = fork.strengths.clone(), fork.values.clone()
    reads: dict[str, list[torch.Tensor]] = {"a": [], "b": []}
    states = {"a": fork, "b": fork}
    for t in range(10):  # interleave the two branches
        for name, branch in (("a", branch_a), ("b", branch_b)):
            read, states[name] = memory.step(states[name], *(x[:, t] for x in branch))
            reads[name].append(read)
    for name, branch in (("a", branch_a), ("b", branch_b)):
        whole = [torch.cat([p, q], dim=1) for p, q in zip(prefix, branch, strict=True)]
        torch.testing.assert_close(torch.stack(reads[name], 1), memory.run(*whole)[:, 10:])
    torch.testing.assert_close(fork.strengths, strengths_before)
    torch.testing.assert_close(fork.values, values_before)


def test_deque_branches_and_grows_at_both_ends() -> None:
    deque = NeuralDeque()
    gen = _gen()
    prefix, branch = random_deque(gen, 1, 30, 2), random_deque(gen, 1, 30, 2)
    state = deque.initial_state(1, 2, dtype=F64)
    for t in range(30):
        _, state = deque.step(state, *(x[:, t] for x in prefix))
    assert state.size == 60
    torch.testing.assert_close(state.values, torch.cat([prefix[1].flip(1), prefix[0]], dim=1))
    for _ in range(2):  # the same continuation twice from one state
        s = state
        tops = []
        for t in range(30):
            (top, _), s = deque.step(s, *(x[:, t] for x in branch))
            tops.append(top)
        whole = [torch.cat([p, q], dim=1) for p, q in zip(prefix, branch, strict=True)]
        torch.testing.assert_close(torch.stack(tops, 1), deque.run(*whole)[0][:, 30:])


def test_empty_sequence_and_empty_memory() -> None:
    values, push, pop = random_one_ended(_gen(), 2, 0, 3)
    assert NeuralStack().run(values, push, pop).shape == (2, 0, 3)
    top, bot = NeuralDeque().run(*random_deque(_gen(), 2, 0, 3))
    assert top.shape == bot.shape == (2, 0, 3)
    state = NeuralQueue().initial_state(2, 3)
    assert state.size == 0 and state.strengths.shape == (2, 0) and state.values.shape == (2, 0, 3)


def test_dtype_follows_the_state_and_default() -> None:
    state = NeuralStack().initial_state(1, 2)
    assert state.dtype == torch.get_default_dtype()
    state = NeuralDeque().initial_state(1, 2, dtype=torch.float16)
    assert state.dtype == torch.float16 and state.device.type == "cpu"
    read, _ = NeuralStack().step(
        NeuralStack().initial_state(1, 2, dtype=torch.bfloat16),
        torch.ones(1, 2, dtype=torch.bfloat16),
        torch.ones(1, dtype=torch.bfloat16),
        torch.zeros(1, dtype=torch.bfloat16),
    )
    assert read.dtype == torch.bfloat16 and read.tolist() == [[1.0, 1.0]]


def test_no_grad_and_detached_values() -> None:
    stack = NeuralStack()
    inputs = random_one_ended(_gen(), 2, 20, 3)
    with torch.no_grad():
        reads = run_by_steps(stack, *inputs)
    torch.testing.assert_close(reads, stack.run(*inputs))
    assert not reads.requires_grad


def test_gradient_reaches_values_pushed_before_a_growth() -> None:
    """Rows copied into a larger buffer keep their path back to the pushed values."""
    stack = NeuralStack()
    values, push, pop = random_one_ended(_gen(), 1, 40, 2)
    values.requires_grad_()
    reads = run_by_steps(stack, values, torch.ones_like(push), torch.zeros_like(pop))
    (grad,) = torch.autograd.grad(reads[:, -1].sum() + reads[:, 0].sum(), values)
    want = torch.zeros_like(values)
    want[:, 0] = 1.0  # read at step 0: the only row
    want[:, -1] = 1.0  # read at the last step: the top row, after two growths
    torch.testing.assert_close(grad, want)


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
def test_a_detached_state_has_a_buffer_of_its_own_and_continues(memory: NeuralStack) -> None:
    """Truncated backpropagation: the detached state holds the same memory, cut from the
    graph, and stepping it writes nowhere the original's buffer can see."""
    gen = _gen()
    prefix = [x.requires_grad_() if x.is_floating_point() else x
              for x in random_one_ended(gen, 2, 10, 3)]  # fmt: skip
    rest = random_one_ended(gen, 2, 10, 3)
    state = memory.initial_state(2, 3, dtype=F64)
    for t in range(10):
        _, state = memory.step(state, *(x[:, t] for x in prefix))
    detached = state.detach()
    assert not detached.strengths.requires_grad and not detached.values.requires_grad
    assert detached.buffer is not state.buffer
    assert torch.equal(detached.strengths, state.strengths)
    assert torch.equal(detached.values, state.values)
    original = state.buffer.data.clone()
    reads = []
    for t in range(10):
        read, detached = memory.step(detached, *(x[:, t] for x in rest))
        reads.append(read)
    assert torch.equal(state.buffer.data, original)
    whole = [torch.cat([p.detach(), q], dim=1) for p, q in zip(prefix, rest, strict=True)]
    torch.testing.assert_close(torch.stack(reads, 1), memory.run(*whole)[:, 10:])


def test_a_detached_deque_state_grows_at_both_ends() -> None:
    deque = NeuralDeque()
    gen = _gen()
    first, second = random_deque(gen, 1, 20, 2), random_deque(gen, 1, 20, 2)
    state = deque.initial_state(1, 2, dtype=F64)
    for t in range(20):
        _, state = deque.step(state, *(x[:, t] for x in first))
    state = state.detach()
    for t in range(20):
        _, state = deque.step(state, *(x[:, t] for x in second))
    assert state.size == 80
