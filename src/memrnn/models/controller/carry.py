"""What a controller carries from one step to the next, and what one step gives."""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

from memrnn.structures import MemoryState


@dataclass(frozen=True)
class Carry:
    """The recurrent state H_t between steps: controller state, last read(s), memory."""

    h: Tensor
    c: Tensor | None
    read: Tensor
    memory: MemoryState


@dataclass(frozen=True)
class StepOutput:
    """One step's o'_t and gates (the bottom end's None except for a deque)."""

    o_prime: Tensor
    push: Tensor
    pop: Tensor
    push_bot: Tensor | None
    pop_bot: Tensor | None
