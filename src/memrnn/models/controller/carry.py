"""What a controller carries from one step to the next, and what one step gives."""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

from memrnn.models.state import Detachable
from memrnn.structures import MemoryState


@dataclass(frozen=True)
class Carry(Detachable):
    """The recurrent state H_t between steps: controller state h_t (B, H), an LSTM's c_t
    (B, H) (None for an Elman cell), the last read(s) r_t (B, E m) and the memory;
    ``detach()`` cuts all of them from the graph (truncated backpropagation)."""

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
