"""Random inputs and the reference applied batch-wise, for the memory tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor

from memrnn.structures import MemoryState, NeuralDeque, NeuralQueue, NeuralStack
from memrnn.structures import reference as R

F64 = torch.float64
ONE_ENDED = {"stack": NeuralStack, "queue": NeuralQueue}
REFERENCE = {
    "stack": (R.stack_forward, R.stack_backward),
    "queue": (R.queue_forward, R.queue_backward),
}


def random_one_ended(
    gen: torch.Generator, batch: int, steps: int, width: int, dtype: torch.dtype = F64
) -> tuple[Tensor, Tensor, Tensor]:
    """values (B, T, m) ~ N(0, 1); push and pop (B, T) ~ U(0, 1)."""
    values = torch.randn(batch, steps, width, generator=gen, dtype=dtype)
    push = torch.rand(batch, steps, generator=gen, dtype=dtype)
    pop = torch.rand(batch, steps, generator=gen, dtype=dtype)
    return values, push, pop


def random_deque(
    gen: torch.Generator, batch: int, steps: int, width: int, dtype: torch.dtype = F64
) -> list[Tensor]:
    """values_top, values_bot, push_top, push_bot, pop_top, pop_bot."""
    values = [torch.randn(batch, steps, width, generator=gen, dtype=dtype) for _ in range(2)]
    gates = [torch.rand(batch, steps, generator=gen, dtype=dtype) for _ in range(4)]
    return values + gates


def run_by_steps(memory: NeuralStack | NeuralQueue, *inputs: Tensor) -> Tensor:
    """The reads of a stack or queue driven one ``step`` at a time."""
    values = inputs[0]
    state = memory.initial_state(
        values.shape[0], values.shape[2], dtype=values.dtype, device=values.device
    )
    reads = []
    for t in range(values.shape[1]):
        read, state = memory.step(state, *(x[:, t] for x in inputs))
        reads.append(read)
    return torch.stack(reads, dim=1)


def run_deque_by_steps(deque: NeuralDeque, *inputs: Tensor) -> tuple[Tensor, Tensor]:
    """The reads of a deque driven one ``step`` at a time."""
    state: MemoryState = deque.initial_state(
        inputs[0].shape[0], inputs[0].shape[2], dtype=inputs[0].dtype, device=inputs[0].device
    )
    tops, bots = [], []
    for t in range(inputs[0].shape[1]):
        (top, bot), state = deque.step(state, *(x[:, t] for x in inputs))
        tops.append(top)
        bots.append(bot)
    return torch.stack(tops, dim=1), torch.stack(bots, dim=1)


def per_sequence(fn: Callable[..., object], inputs: Sequence[Tensor]) -> list[object]:
    """Apply an unbatched reference function to each sequence of a batch."""
    arrays = [x.detach().numpy() for x in inputs]
    return [fn(*(a[b] for a in arrays)) for b in range(inputs[0].shape[0])]


def stack_rows(rows: Sequence[np.ndarray]) -> Tensor:
    return torch.from_numpy(np.stack(rows))
