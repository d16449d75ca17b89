"""The superposition stack: exact with hard actions, a blend with soft ones."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.structures.superposition import SuperpositionStack, with_room

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


def all_rows(stack: torch.Tensor, filled: int, depth: int) -> torch.Tensor:
    """The stack on all ``depth`` rows from the start, as before ``with_room``."""
    missing = depth - stack.shape[1]
    return torch.cat([stack, stack.new_zeros(stack.shape[0], missing, stack.shape[2])], 1)


def test_with_room_grows_in_blocks_of_64_numbers_up_to_the_depth() -> None:
    empty = torch.zeros(2, 0, 8)
    assert with_room(empty, 0, 100).shape == (2, 8, 8)  # 8 rows of 8: 64 numbers
    assert with_room(torch.zeros(2, 8, 8), 7, 100).shape == (2, 8, 8)  # room already
    assert with_room(torch.zeros(2, 8, 8), 8, 100).shape == (2, 16, 8)
    assert with_room(torch.zeros(2, 8, 8), 8, 11).shape == (2, 11, 8)  # never past D
    assert with_room(torch.zeros(2, 0, 3), 0, 500).shape == (2, 64, 3)  # 64 rows of 3
    assert with_room(torch.zeros(2, 0, 64), 5, 500).shape == (2, 6, 64)
    kept = torch.rand(2, 11, 8)
    assert with_room(kept, 11, 11) is kept


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize(
    ("batch", "depth", "width", "steps", "noop"),
    [(256, 82, 8, 23, False), (32, 41, 8, 40, False), (64, 200, 5, 120, False),
     (16, 30, 16, 60, True), (8, 10, 3, 30, True), (4, 7, 64, 12, False),
     (2, 300, 64, 290, True)],  # rows of over 16,384 numbers: every level of the sums
)  # fmt: skip
def test_steps_with_room_give_the_numbers_of_all_rows_bit_for_bit(
    batch: int, depth: int, width: int, steps: int, noop: bool, dtype: torch.dtype
) -> None:
    """Forward and gradients, with the stack growing as it fills and on all D rows from
    the start; some runs go past D, where pushes drop the bottom row."""
    stack = SuperpositionStack()
    gen = torch.Generator().manual_seed(batch + steps)
    actions = torch.softmax(torch.randn(batch, steps, 3, generator=gen, dtype=dtype), -1)
    values = torch.rand(batch, steps, width, generator=gen, dtype=dtype)
    weights = torch.randn(batch, steps, width, generator=gen, dtype=dtype)

    def run(room: Callable[[torch.Tensor, int, int], torch.Tensor]) -> list[torch.Tensor]:
        a, v = actions.clone().requires_grad_(), values.clone().requires_grad_()
        state, filled, tops = torch.zeros(batch, 0, width, dtype=dtype), 0, []
        for t in range(steps):
            state = room(state, filled, depth)
            filled = min(depth, filled + 1)
            top, state = stack.step(state, v[:, t], a[:, t, 0], a[:, t, 1],
                                    a[:, t, 2] if noop else None)  # fmt: skip
            tops.append(top)
        (torch.stack(tops, 1) * weights).sum().backward()
        assert a.grad is not None and v.grad is not None
        return [torch.stack(tops, 1), room(state, depth, depth), a.grad, v.grad]

    for lean, full in zip(run(with_room), run(all_rows), strict=True):
        assert torch.equal(lean, full)
