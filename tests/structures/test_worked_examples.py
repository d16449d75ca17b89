"""The paper's Figure 1a, and a deque example worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack
from memrnn.structures import reference as R
from tests.structures.helpers import F64, run_by_steps, run_deque_by_steps

# Figure 1a: scalar values 1, 2, 3 with (push, pop) = (0.8, 0), (0.5, 0.1), (0.9, 0.9).
VALUES = [[1.0], [2.0], [3.0]]
PUSH = [0.8, 0.5, 0.9]
POP = [0.0, 0.1, 0.9]
FIGURE_1A = {
    "stack": ([0.8, 1.5, 2.8], [[0.8], [0.7, 0.5], [0.3, 0.0, 0.9]]),
    "queue": ([0.8, 1.3, 2.7], [[0.8], [0.7, 0.5], [0.0, 0.3, 0.9]]),
}


def _figure_inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return (
        torch.tensor([VALUES], dtype=F64),
        torch.tensor([PUSH], dtype=F64),
        torch.tensor([POP], dtype=F64),
    )


@pytest.mark.parametrize("kind", ["stack", "queue"])
def test_figure_1a_reference(kind: str) -> None:
    forward = R.stack_forward if kind == "stack" else R.queue_forward
    trace = forward(np.array(VALUES), np.array(PUSH), np.array(POP))
    reads, strengths = FIGURE_1A[kind]
    np.testing.assert_allclose(trace.reads[:, 0], reads, atol=1e-12)
    for got, want in zip(trace.strengths, strengths, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
def test_figure_1a_vectorised(memory: NeuralStack | NeuralQueue) -> None:
    kind = "stack" if isinstance(memory, NeuralStack) else "queue"
    reads, strengths = FIGURE_1A[kind]
    inputs = _figure_inputs()
    torch.testing.assert_close(memory.run(*inputs)[0, :, 0], torch.tensor(reads, dtype=F64))
    torch.testing.assert_close(
        run_by_steps(memory, *inputs)[0, :, 0], torch.tensor(reads, dtype=F64)
    )
    state = memory.initial_state(1, 1, dtype=F64)
    for t in range(3):
        _, state = memory.step(state, *(x[:, t] for x in inputs))
        torch.testing.assert_close(state.strengths[0], torch.tensor(strengths[t], dtype=F64))
    torch.testing.assert_close(state.values[0, :, 0], torch.tensor([1.0, 2.0, 3.0], dtype=F64))


# A deque example, derived by hand from Eqs. (6)-(11). Values are scalars; rows are listed
# bottom first.
DEQUE_INPUTS = {  # per step: v_top, v_bot, d_top, d_bot, u_top, u_bot
    "value_top": [1.0, 2.0, 3.0],
    "value_bot": [-1.0, -2.0, -3.0],
    "push_top": [0.6, 0.5, 0.0],
    "push_bot": [0.7, 0.4, 0.0],
    "pop_top": [0.0, 0.8, 1.0],
    "pop_bot": [0.0, 0.3, 0.0],
}
DEQUE_READS = [(0.2, -0.4), (0.2, -0.2), (-0.2, -0.2)]
DEQUE_STRENGTHS = [[0.7, 0.6], [0.4, 0.2, 0.0, 0.5], [0.0, 0.1, 0.0, 0.0, 0.0, 0.0]]


def test_deque_worked_example() -> None:
    """Worked by hand.

    t=1: nothing to pop. s_1 = (d_bot, d_top) = (0.7, 0.6) over V_1 = (-1, 1).
         top read: row 1 has 0.6 <= 1, row 0 gets min(0.7, 1 - 0.6) = 0.4:
         r_top = 0.6*1 + 0.4*(-1) = 0.2.
         bottom read: row 0 has 0.7, row 1 gets min(0.6, 1 - 0.7) = 0.3:
         r_bot = 0.7*(-1) + 0.3*1 = -0.4.
    t=2: pop 0.8 from the top of (0.7, 0.6): row 1 loses 0.8 -> 0; row 0 is reached by
         0.8 - 0.6 = 0.2 -> 0.5. Eq. (7): (0.5, 0).
         pop 0.3 from the bottom: row 0 -> 0.2; row 1 is reached by 0.3 - 0.5 < 0 -> 0.
         Eq. (8): (0.2, 0). Eq. (9) with d_bot = 0.4, d_top = 0.5:
         s_2 = (0.4, 0.2, 0, 0.5) over V_2 = (-2, -1, 1, 2).
         top read: 0.5 of row 3, 0 of row 2, 0.2 of row 1 (room 0.5),
         0.3 of row 0 (room 1 - 0.7): r_top = 1.0 - 0.2 - 0.6 = 0.2.
         bottom read: 0.4 of row 0, 0.2 of row 1, 0 of row 2, 0.4 of row 3 (room 1 - 0.6):
         r_bot = -0.8 - 0.2 + 0.8 = -0.2.
    t=3: pop 1.0 from the top of (0.4, 0.2, 0, 0.5): row 3 -> 0, row 2 -> 0,
         row 1 is reached by 1 - 0.5 = 0.5 -> 0, row 0 by 1 - 0.7 = 0.3 -> 0.1.
         No bottom pop, zero pushes: s_3 = (0, 0.1, 0, 0, 0, 0) over
         V_3 = (-3, -2, -1, 1, 2, 3). Both reads see only row 1: 0.1 * (-2) = -0.2.
    """
    inputs = [
        torch.tensor([seq], dtype=F64).unsqueeze(-1)
        if name.startswith("value")
        else torch.tensor([seq], dtype=F64)
        for name, seq in DEQUE_INPUTS.items()
    ]
    want_top = torch.tensor([r for r, _ in DEQUE_READS], dtype=F64)
    want_bot = torch.tensor([r for _, r in DEQUE_READS], dtype=F64)

    trace = R.deque_forward(*(x[0].numpy() for x in inputs))
    np.testing.assert_allclose(trace.reads_top[:, 0], want_top.numpy(), atol=1e-12)
    np.testing.assert_allclose(trace.reads_bot[:, 0], want_bot.numpy(), atol=1e-12)
    for got, want in zip(trace.strengths, DEQUE_STRENGTHS, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-12)

    deque = NeuralDeque()
    for top, bot in (deque.run(*inputs), run_deque_by_steps(deque, *inputs)):
        torch.testing.assert_close(top[0, :, 0], want_top)
        torch.testing.assert_close(bot[0, :, 0], want_bot)
    state = deque.initial_state(1, 1, dtype=F64)
    for t in range(3):
        _, state = deque.step(state, *(x[:, t] for x in inputs))
        torch.testing.assert_close(state.strengths[0], torch.tensor(DEQUE_STRENGTHS[t], dtype=F64))
    rows = torch.tensor([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], dtype=F64)
    torch.testing.assert_close(state.values[0, :, 0], rows)
