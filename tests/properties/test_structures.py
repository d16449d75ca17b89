"""Properties of the neural Stack, Queue and DeQue (Grefenstette et al. 2015) and the
superposition stack (Joulin and Mikolov 2015) over random shapes, gates and values:

- ``run`` equals a loop of ``step`` (the reads, to float64 rounding);
- after every step the strengths lie in [0, 1] and a read's weights are >= 0 and sum to
  min(1, total strength) (Eqs. 3 and 5), so a read never exceeds the largest value;
- a superposition step with action weights summing to 1 keeps every entry within the
  range of the old stack, the pushed value and 0;
- a gate outside [0, 1] (or NaN) anywhere, or a gate of the wrong shape, raises a
  ValueError naming that gate.
"""

from __future__ import annotations

import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack, SuperpositionStack
from memrnn.structures.base import strength_step

F64 = torch.float64
CASES = settings(max_examples=40, deadline=None)
FEW = settings(max_examples=25, deadline=None)

# gates in [0, 1], the ends (where the max and min of Eqs. 2-5 have kinks) drawn often
gate = st.one_of(st.just(0.0), st.just(1.0), st.floats(0.0, 1.0))
# a value a gate may not take
bad_gate = st.one_of(
    st.floats(1.0, 1e6, exclude_min=True),
    st.floats(-1e6, 0.0, exclude_max=True),
    st.just(float("nan")),
)
value = st.floats(-10.0, 10.0)


@st.composite
def sequences(draw: st.DrawFn, ends: int = 1) -> tuple[torch.Tensor, ...]:
    """(values (B, T, m) per end, then push and pop (B, T) per end) as float64."""
    b, t, m = draw(st.integers(1, 3)), draw(st.integers(0, 6)), draw(st.integers(1, 3))
    values = [
        torch.tensor(
            draw(st.lists(value, min_size=b * t * m, max_size=b * t * m)), dtype=F64
        ).reshape(b, t, m)
        for _ in range(ends)
    ]
    gates = [
        torch.tensor(draw(st.lists(gate, min_size=b * t, max_size=b * t)), dtype=F64).reshape(b, t)
        for _ in range(2 * ends)
    ]
    return (*values, *gates)


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
@CASES
@given(data=sequences())
def test_one_ended_run_equals_steps_and_keeps_its_invariants(
    memory: NeuralStack, data: tuple[torch.Tensor, ...]
) -> None:
    values, push, pop = data
    b, t, m = values.shape
    state = memory.initial_state(b, m, dtype=F64)
    reads = []
    for step in range(t):
        _, weights = strength_step(state.strengths, push[:, step], pop[:, step], memory.end)
        read, state = memory.step(state, values[:, step], push[:, step], pop[:, step])
        s = state.strengths
        assert bool(((s >= 0) & (s <= 1)).all())
        assert bool((weights >= 0).all())
        torch.testing.assert_close(weights.sum(1), s.sum(1).clamp(max=1.0))
        assert bool((read.abs() <= values[:, : step + 1].abs().amax((1, 2))[:, None] + 1e-9).all())
        reads.append(read)
    run = memory.run(values, push, pop)
    assert run.shape == (b, t, m)
    if t:
        torch.testing.assert_close(run, torch.stack(reads, 1))


@FEW
@given(data=sequences(ends=2))
def test_deque_run_equals_steps_and_keeps_strengths_in_range(
    data: tuple[torch.Tensor, ...],
) -> None:
    values_top, values_bot, *gates = data
    b, t, m = values_top.shape
    deque = NeuralDeque()
    state = deque.initial_state(b, m, dtype=F64)
    tops, bots = [], []
    for step in range(t):
        (top, bot), state = deque.step(
            state, values_top[:, step], values_bot[:, step], *(g[:, step] for g in gates)
        )
        assert bool(((state.strengths >= 0) & (state.strengths <= 1)).all())
        tops.append(top)
        bots.append(bot)
    run_top, run_bot = deque.run(values_top, values_bot, *gates)
    if t:
        torch.testing.assert_close(run_top, torch.stack(tops, 1))
        torch.testing.assert_close(run_bot, torch.stack(bots, 1))


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue(), NeuralDeque()], ids=repr)
@CASES
@given(
    data=sequences(ends=2),
    which=st.integers(0, 3),
    bad=bad_gate,
    where=st.integers(0, 10**6),
)
def test_a_gate_outside_the_unit_interval_is_named(
    memory: NeuralStack, data: tuple[torch.Tensor, ...], which: int, bad: float, where: int
) -> None:
    values_top, values_bot, *gates = data
    b, t, m = values_top.shape
    if t == 0:
        values_top, values_bot = torch.zeros(b, 1, m, dtype=F64), torch.zeros(b, 1, m, dtype=F64)
        gates = [torch.full((b, 1), 0.5, dtype=F64) for _ in range(4)]
        t = 1
    names = ["push_top", "push_bot", "pop_top", "pop_bot"]
    if not isinstance(memory, NeuralDeque):
        which, names, gates = which % 2, ["push", "pop"], [gates[0], gates[2]]
    gates[which] = gates[which].clone()
    gates[which].view(-1)[where % (b * t)] = bad
    with pytest.raises(ValueError, match=rf"^{names[which]}: (must lie in \[0, 1\]|contains NaN)"):
        if isinstance(memory, NeuralDeque):
            memory.run(values_top, values_bot, *gates)
        else:
            memory.run(values_top, *gates)


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
@CASES
@given(data=sequences(), extra=st.integers(1, 3), name=st.sampled_from(["push", "pop"]))
def test_a_gate_of_the_wrong_shape_is_named(
    memory: NeuralStack, data: tuple[torch.Tensor, ...], extra: int, name: str
) -> None:
    values, push, pop = data
    b, t, _ = values.shape
    gates = {"push": push, "pop": pop}
    gates[name] = torch.full((b, t + extra), 0.5, dtype=F64)
    message = f"{name}: expected shape (B, T) = ({b}, {t}), got ({b}, {t + extra})"
    with pytest.raises(ValueError, match=re.escape(message)):
        memory.run(values, **gates)


@CASES
@given(
    b=st.integers(1, 3),
    d=st.integers(1, 5),
    m=st.integers(1, 3),
    noop=st.booleans(),
    data=st.data(),
)
def test_a_superposition_step_stays_within_what_it_blends(
    b: int, d: int, m: int, noop: bool, data: st.DataObject
) -> None:
    stack = torch.tensor(data.draw(st.lists(value, min_size=b * d * m, max_size=b * d * m)))
    stack = stack.reshape(b, d, m).double()
    pushed = torch.tensor(data.draw(st.lists(value, min_size=b * m, max_size=b * m))).double()
    pushed = pushed.reshape(b, m)
    logits = torch.tensor(data.draw(st.lists(value, min_size=3 * b, max_size=3 * b))).double()
    actions = torch.softmax(logits.reshape(b, 3)[:, : 3 if noop else 2], dim=1)
    top, new = SuperpositionStack().step(stack, pushed, *actions.unbind(1))
    low = torch.minimum(stack.amin((1, 2)), pushed.amin(1)).clamp(max=0)[:, None, None]
    high = torch.maximum(stack.amax((1, 2)), pushed.amax(1)).clamp(min=0)[:, None, None]
    assert new.shape == (b, d, m) and torch.equal(top, new[:, 0])
    assert bool(((new >= low - 1e-9) & (new <= high + 1e-9)).all())


@CASES
@given(b=st.integers(1, 3), bad=bad_gate, name=st.sampled_from(["push", "pop", "noop"]))
def test_a_superposition_weight_outside_the_unit_interval_is_named(
    b: int, bad: float, name: str
) -> None:
    weights = {"push": torch.full((b,), 0.5, dtype=F64), "pop": torch.full((b,), 0.5, dtype=F64)}
    weights[name] = torch.full((b,), bad, dtype=F64)
    stack, pushed = torch.zeros(b, 4, 2, dtype=F64), torch.zeros(b, 2, dtype=F64)
    with pytest.raises(ValueError, match=rf"^{name}: (must lie in \[0, 1\]|contains NaN)"):
        SuperpositionStack().step(stack, pushed, **weights)
