"""The superposition stack: exact with hard actions, a blend with soft ones."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.structures.superposition import SuperpositionStack

F64 = torch.float64


@settings(max_examples=200)
@given(
    ops=st.lists(st.sampled_from(["push", "pop", "noop"]), min_size=1, max_size=30),
    depth=st.integers(1, 6),
)
def test_hard_actions_are_a_classical_bounded_stack(ops: list[str], depth: int) -> None:
    """One-hot actions: a stack of ``depth`` rows that drops its bottom when full."""
    stack = SuperpositionStack()
    state = stack.initial_state(1, 2, depth, dtype=F64)
    items: list[list[float]] = []
    for t, op in enumerate(ops):
        value = [float(t + 1), -float(t + 1)]
        weights = {k: torch.tensor([float(op == k)], dtype=F64) for k in ("push", "pop", "noop")}
        top, state = stack.step(state, torch.tensor([value], dtype=F64), **weights)
        if op == "push":
            items = [value, *items][:depth]
        elif op == "pop":
            items = items[1:]
        want = items + [[0.0, 0.0]] * (depth - len(items))
        torch.testing.assert_close(state[0], torch.tensor(want, dtype=F64), rtol=0, atol=0)
        torch.testing.assert_close(top[0], torch.tensor(want[0], dtype=F64), rtol=0, atol=0)


def test_soft_actions_blend_the_three_stacks() -> None:
    stack = SuperpositionStack()
    state = torch.tensor([[[1.0], [2.0], [3.0]]], dtype=F64)
    value = torch.tensor([[9.0]], dtype=F64)
    w = {
        "push": torch.tensor([0.5], dtype=F64),
        "pop": torch.tensor([0.3], dtype=F64),
        "noop": torch.tensor([0.2], dtype=F64),
    }
    top, new = stack.step(state, value, **w)
    # push (9, 1, 2), pop (2, 3, 0), no-op (1, 2, 3)
    want = [0.5 * 9 + 0.3 * 2 + 0.2 * 1, 0.5 * 1 + 0.3 * 3 + 0.2 * 2, 0.5 * 2 + 0.2 * 3]
    torch.testing.assert_close(new[0, :, 0], torch.tensor(want, dtype=F64))
    assert top.item() == pytest.approx(want[0])


def test_gradients_reach_value_and_weights() -> None:
    stack = SuperpositionStack()
    state = torch.rand(2, 4, 3, dtype=F64, requires_grad=True)
    value = torch.rand(2, 3, dtype=F64, requires_grad=True)
    push = torch.rand(2, dtype=F64, requires_grad=True)
    pop = torch.rand(2, dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *xs: stack.step(*xs)[1], (state, value, push, pop))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"value": torch.zeros(2, 4)}, "value: expected shape (B, m) = (2, 3), got (2, 4)"),
        ({"push": torch.full((2,), 1.5)}, "push: must lie in [0, 1]"),
        ({"pop": torch.full((3,), 0.5)}, "pop: expected shape (B,) = (2,), got (3,)"),
        ({"noop": torch.full((2,), float("nan"))}, "noop: contains NaN"),
        ({"stack": torch.zeros(2, 3)}, "stack: expected shape (B, D, m) with D >= 1, got (2, 3)"),
        ({"stack": torch.zeros(2, 0, 3)}, "stack: expected shape (B, D, m) with D >= 1"),
        (
            {"stack": torch.zeros(2, 5, 3, dtype=torch.long)},
            "dtype: a memory needs a floating-point dtype, got torch.int64",
        ),
    ],
)
def test_bad_input_is_named(args: dict[str, torch.Tensor], message: str) -> None:
    full = {
        "stack": torch.zeros(2, 5, 3),
        "value": torch.zeros(2, 3),
        "push": torch.full((2,), 0.5),
        "pop": torch.full((2,), 0.5),
    } | args
    with pytest.raises(ValueError) as error:
        SuperpositionStack().step(**full)
    assert str(error.value).startswith(message)


def test_the_validate_switch_takes_a_bool_only() -> None:
    with pytest.raises(ValueError, match="validate: expected True or False, got 'no'"):
        SuperpositionStack(validate="no")  # type: ignore[arg-type]


def test_initial_state_checks_sizes() -> None:
    assert SuperpositionStack().initial_state(2, 3, 4).shape == (2, 4, 3)
    with pytest.raises(ValueError, match="depth: expected an int >= 1, got 0"):
        SuperpositionStack().initial_state(2, 3, 0)
    with pytest.raises(ValueError, match="dtype: a memory needs a floating-point dtype"):
        SuperpositionStack().initial_state(2, 3, 4, dtype=torch.long)
