"""The one output type for gate traces: a memory model's outputs with the gates it took.

Every model's ``forward`` returns its per-step outputs (B, T, O) alone, so that losses,
benchmarks and wrappers treat all models alike. A model whose memory has push and pop
gates also has ``trace``, which runs the same forward pass and returns a ``Trace``: the
same outputs and, from that one pass, the gates (and, on request, the memory's
strengths) for plots and gate statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor


@dataclass(frozen=True)
class Trace:
    """A memory model's per-step outputs and the gates it took at each step.

    Attributes:
        outputs: (B, T, O), what ``forward`` returns for the same inputs.
        push: (B, T) the push strength at each step (of the top end, for a deque; the
            push action's weight, for a superposition stack).
        pop: (B, T) the pop strength at each step, likewise.
        push_bot: (B, T) a deque's bottom end's push strengths, else None.
        pop_bot: (B, T) a deque's bottom end's pop strengths, else None.
        strengths: when asked for, the memory's strengths after each step: (B, T, T) for
            a stack or queue (row i: the i-th value pushed; zero before it exists) and
            (B, T, 2T) for a deque (bottom first, centred); else None.
    """

    outputs: Tensor
    push: Tensor
    pop: Tensor
    push_bot: Tensor | None = None
    pop_bot: Tensor | None = None
    strengths: Tensor | None = None
