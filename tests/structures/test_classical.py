"""With push and pop in {0, 1}, each memory is exactly its classical counterpart."""

from __future__ import annotations

from collections import deque as pydeque

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack
from tests.structures.helpers import F64, run_by_steps, run_deque_by_steps

bits = st.integers(0, 1)
one_ended_ops = st.lists(st.tuples(bits, bits), min_size=1, max_size=40)
deque_ops = st.lists(st.tuples(bits, bits, bits, bits), min_size=1, max_size=40)
CASES = settings(max_examples=300)


def _value(t: int, end: int = 0) -> list[float]:
    """A distinct, exactly representable value for the push at step t at one end."""
    return [float(t + 1), -float(t + 1) - 0.5 * end]


def _one_ended_inputs(ops: list[tuple[int, int]]) -> tuple[torch.Tensor, ...]:
    values = torch.tensor([[_value(t) for t in range(len(ops))]], dtype=F64)
    push = torch.tensor([[p for p, _ in ops]], dtype=F64)
    pop = torch.tensor([[u for _, u in ops]], dtype=F64)
    return values, push, pop


def _classical_reads(ops: list[tuple[int, int]], lifo: bool) -> torch.Tensor:
    items: list[list[float]] = []
    reads = []
    for t, (push, pop) in enumerate(ops):
        if pop and items:
            items.pop(-1 if lifo else 0)
        if push:
            items.append(_value(t))
        reads.append(items[-1 if lifo else 0] if items else [0.0, 0.0])
    return torch.tensor([reads], dtype=F64)


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
@CASES
@given(ops=one_ended_ops)
def test_stack_and_queue_are_classical(
    memory: NeuralStack | NeuralQueue, ops: list[tuple[int, int]]
) -> None:
    inputs = _one_ended_inputs(ops)
    want = _classical_reads(ops, lifo=isinstance(memory, NeuralStack))
    torch.testing.assert_close(memory.run(*inputs), want, rtol=0, atol=0)
    torch.testing.assert_close(run_by_steps(memory, *inputs), want, rtol=0, atol=0)


@CASES
@given(deque_ops)
def test_deque_is_classical(ops: list[tuple[int, int, int, int]]) -> None:
    """Per step: pop the top, pop the bottom, push the bottom, push the top, read both."""
    steps = len(ops)
    values_top = torch.tensor([[_value(t, 0) for t in range(steps)]], dtype=F64)
    values_bot = torch.tensor([[_value(t, 1) for t in range(steps)]], dtype=F64)
    gates = [torch.tensor([[op[k] for op in ops]], dtype=F64) for k in range(4)]
    items: pydeque[list[float]] = pydeque()
    tops, bots = [], []
    for t, (push_top, push_bot, pop_top, pop_bot) in enumerate(ops):
        if pop_top and items:
            items.pop()
        if pop_bot and items:
            items.popleft()
        if push_bot:
            items.appendleft(_value(t, 1))
        if push_top:
            items.append(_value(t, 0))
        tops.append(items[-1] if items else [0.0, 0.0])
        bots.append(items[0] if items else [0.0, 0.0])
    want_top = torch.tensor([tops], dtype=F64)
    want_bot = torch.tensor([bots], dtype=F64)
    deque = NeuralDeque()
    inputs = (values_top, values_bot, *gates)
    for top, bot in (deque.run(*inputs), run_deque_by_steps(deque, *inputs)):
        torch.testing.assert_close(top, want_top, rtol=0, atol=0)
        torch.testing.assert_close(bot, want_bot, rtol=0, atol=0)
