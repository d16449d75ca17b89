"""A memory's state belongs to its kind: a stack or queue stepped with a deque's state,
or a deque with theirs, is refused rather than read wrongly."""

from __future__ import annotations

import pytest
import torch

from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack


def test_a_state_of_the_other_kind_is_refused() -> None:
    v, g = torch.randn(2, 3), torch.rand(2)
    deque = NeuralDeque()
    _, deque_state = deque.step(deque.initial_state(2, 3), v, v, g, g, g, g)
    for memory in (NeuralStack(), NeuralQueue()):
        with pytest.raises(ValueError, match="expected a stack's or queue's state, got a deque"):
            memory.step(deque_state, v, g, g)
        _, state = memory.step(memory.initial_state(2, 3), v, g, g)
        with pytest.raises(ValueError, match="expected a deque's state, got a stack's or queue"):
            deque.step(state, v, v, g, g, g, g)
    assert deque_state.detach().centred  # kept when the state is cut from its graph
