"""Stack Manipulation: an initial stack of bits (bottom to top), then POP (2), PUSH 0 (3)
and PUSH 1 (4) actions; the answer is the final stack top to bottom and the termination
token, scored up to it."""

from __future__ import annotations

import numpy as np

from memrnn.tasks import make_task
from memrnn.tasks.chomsky.stack_manipulation import final_stacks
from tests.tasks.chomsky.support import answer_to, sampled

POP, END = 2, 2


def _run(string: list[int]) -> list[int]:
    stack: list[int] = []
    for symbol in string:
        if symbol == POP:
            if stack:
                stack.pop()
        else:
            stack.append(symbol - 3 if symbol >= 3 else symbol)
    return [*stack[::-1], END]


def test_the_answer_is_the_final_stack_top_first() -> None:
    task = make_task("stack_manipulation")
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 32, seed=length):
            assert answer == _run(string)
            # a stack of 1 .. L-1 bits, then actions only (L = 1: one bit)
            bits = next((i for i, s in enumerate(string) if s >= POP), len(string))
            assert set(string[:bits]) <= {0, 1} and all(s >= POP for s in string[bits:])
            assert bits >= 1 and (bits < length or length == 1)


def test_final_stacks_pads_with_zeros_after_the_termination_token() -> None:
    rng = np.random.default_rng(0)
    for length in (1, 2, 5, 17, 64):
        strings = rng.integers(0, 5, size=(200, length))  # pops on an empty stack too
        for row, answer in zip(strings, final_stacks(strings), strict=True):
            expected = _run(row.tolist())
            assert answer.tolist() == expected + [0] * (length + 1 - len(expected))


def test_the_authors_examples() -> None:
    task = make_task("stack_manipulation")
    push_1 = 4
    assert answer_to(task, [0, 1, 1, 0, push_1, POP, POP]) == [1, 1, 0, END]
    assert answer_to(task, [1, 1, 0, POP, POP, POP]) == [END]
