"""Copy and repeat copy, and their stack heuristics, written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.tasks.bit_copy import BITS, PLACEHOLDER, copy_example, nonterminal_codes
from memrnn.tasks.stack_teacher import NO_PUSH


def _replay(example, depth_of_output: int) -> list[np.ndarray]:  # type: ignore[no-untyped-def]
    """Run the teacher's stack; return the stack's symbol at the output depth per step."""
    stack: list[np.ndarray] = []
    code = nonterminal_codes()[0]
    seen = []
    for t in range(len(example.inputs) + 1):
        for pop, push in example.actions[t]:
            del stack[len(stack) - pop :]
            if push != NO_PUSH:
                stack.append(code)
        seen.append(stack[-depth_of_output] if len(stack) >= depth_of_output else None)
        if t < len(example.inputs):
            assert example.shift[t] == 1
            stack.append(example.inputs[t])
    return seen


def test_repeat_copy_by_hand() -> None:
    example = copy_example(np.random.default_rng(0), length=2, repeats=2, depth=4)
    bits = example.inputs[:2, :BITS]
    assert example.inputs[:, BITS].tolist() == [-1, -1, 1, 0, 0, 1, 0, 0]
    # the second token pops the first token and the two recall inputs, one at a time
    pops = [(1, NO_PUSH)] * 3
    assert example.actions == [[], [], [(0, PLACEHOLDER)] * 2, [], [], pops, [], [], []]
    assert example.shift.tolist() == [1] * 9
    want = np.zeros((8, BITS))
    want[3:5] = bits
    want[6:8] = bits
    np.testing.assert_array_equal(example.outputs, want)
    # the heuristic's point: the symbol depth + 1 = 5 deep is the bit vector due at every
    # recall step (the end token sits above the placeholders)
    seen = _replay(example, 5)
    for t in (3, 4, 6, 7):
        np.testing.assert_array_equal(seen[t][:BITS], want[t])


@pytest.mark.parametrize("length", [1, 7, 20])
def test_copy_depth_20(length: int) -> None:
    example = copy_example(np.random.default_rng(length), length=length)
    assert len(example.inputs) == 2 * length + 1
    seen = _replay(example, 21)
    for t in range(length + 1, 2 * length + 1):
        np.testing.assert_array_equal(seen[t][:BITS], example.outputs[t])
    assert example.teacher_outputs.shape == (2 * length + 2, BITS)


def test_placeholder_reads_like_an_input_step() -> None:
    code = nonterminal_codes()
    assert code.shape == (1, BITS + 1)
    assert code[0, BITS] == -1 and not code[0, :BITS].any()


def test_bad_arguments() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"length: expected an int in 1\.\.20, got 21"):
        copy_example(rng, 21)
    with pytest.raises(ValueError, match="repeats: expected an int >= 1, got 0"):
        copy_example(rng, 3, repeats=0)


def test_teacher() -> None:
    example = copy_example(np.random.default_rng(1), length=3, repeats=2)
    teacher = example.teacher
    assert teacher.actions is example.actions and teacher.shift is example.shift
    assert teacher.outputs is example.teacher_outputs
