"""Whether a controller uses its stack as a stack: ``stack_use``, measured from the mean
push and pop strengths while it reads the sequence (encode) and while it writes it back
reversed (decode)."""

from __future__ import annotations

GATE_COLUMNS = ["push_encode", "pop_encode", "push_decode", "pop_decode", "stack_use"]


def stack_use(
    push_encode: float, pop_encode: float, push_decode: float, pop_decode: float
) -> float:
    """How far the gates follow the reversal algorithm: 1 for push-then-pop, 0 for gates
    that do the same while reading and writing (the tutorial's "half at a time")."""
    return ((push_encode - push_decode) + (pop_decode - pop_encode)) / 2
