"""The literal reference refuses what the vectorised memories refuse: gates outside
[0, 1], values that are not finite, sequences that do not line up. Its numbers against
the vectorised memories: test_against_reference.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

from memrnn.structures import reference as R

VALUES, GATE = np.zeros((3, 2)), np.full(3, 0.5)


@pytest.mark.parametrize("forward", [R.stack_forward, R.queue_forward])
@pytest.mark.parametrize(
    ("values", "push", "pop", "message"),
    [
        (VALUES, np.array([0.5, 1.5, 0.5]), GATE, "push: must lie in [0, 1] with no NaN"),
        (VALUES, GATE, np.array([0.5, np.nan, 0.5]), "pop: must lie in [0, 1] with no NaN"),
        (VALUES, GATE, np.array([-0.1, 0.5, 0.5]), "pop: must lie in [0, 1]"),
        (np.full((3, 2), np.inf), GATE, GATE, "values: contains NaN or inf"),
        (np.zeros(3), GATE, GATE, "values: expected shape (T, m), got (3,)"),
        (VALUES, GATE[:2], GATE, "push and pop: expected shape (3,) to match values"),
    ],
)
def test_one_ended_forward_refuses_bad_sequences(
    forward: object, values: np.ndarray, push: np.ndarray, pop: np.ndarray, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        forward(values, push, pop)  # type: ignore[operator]


def test_deque_forward_refuses_sequences_that_do_not_line_up() -> None:
    with pytest.raises(ValueError, match=re.escape("values_bot: expected shape (3, 2)")):
        R.deque_forward(VALUES, np.zeros((2, 2)), GATE, GATE[:2], GATE, GATE[:2])
    with pytest.raises(ValueError, match=re.escape("push: must lie in [0, 1]")):
        R.deque_forward(VALUES, VALUES, GATE, np.full(3, 2.0), GATE, GATE)
