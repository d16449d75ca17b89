"""Cycle Navigation: the state a walk of left (0), stay (1), right (2) steps ends in on a
cycle of 5 states, from state 0."""

from __future__ import annotations

from memrnn.tasks import make_task
from tests.tasks.chomsky.support import answer_to, sampled


def _walk(actions: list[int]) -> int:
    state = 0
    for action in actions:
        state = (state + {0: -1, 1: 0, 2: 1}[action]) % 5
    return state


def test_the_class_is_where_the_walk_ends() -> None:
    task = make_task("cycle_navigation")
    assert task.output_size == 5
    for length in [*range(1, 41), 41, 200, 500]:
        for string, answer in sampled(task, length, 32, seed=length):
            assert set(string) <= {0, 1, 2}
            assert answer == [_walk(string)]


def test_the_authors_examples() -> None:
    task = make_task("cycle_navigation")
    # 1 -1 0 -1 -1 -> -2 = class 3; 1 1 1 -1 -> class 2 (steps written as id - 1)
    assert answer_to(task, [2, 0, 1, 0, 0]) == [3]
    assert answer_to(task, [2, 2, 2, 0]) == [2]
