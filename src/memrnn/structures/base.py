"""The common base of the memories, and the Stack and Queue: pop and read at one end."""

from __future__ import annotations

import torch
from torch import Tensor

from memrnn.structures import strengths as S
from memrnn.structures.checks import (
    check_float_dtype,
    check_tensor,
    check_unit_interval,
)
from memrnn.structures.layout import Kind, Layout
from memrnn.structures.lean import lean_reads
from memrnn.structures.precision import from_autocast
from memrnn.structures.state import MemoryState, empty_state
from memrnn.validation import check_flag


class Memory:
    """What every memory shares: the ``validate`` switch and an empty initial state.

    Args:
        validate: check that push and pop lie in [0, 1] and hold no NaN. This reads one
            value back from the device per call; turn it off in a controller whose gates
            come out of a sigmoid.
    """

    centred = False  # whether values are also pushed below the first row (a deque)

    def __init__(self, *, validate: bool = True) -> None:
        self.validate = check_flag("validate", validate)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(validate={self.validate})"

    def initial_state(
        self,
        batch_size: int,
        width: int,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
        capacity: int | None = None,
    ) -> MemoryState:
        """An empty memory for ``batch_size`` sequences of values of width ``width``.

        ``capacity`` is how many steps to make room for up front (it grows as needed).
        """
        return empty_state(
            batch_size, width, device=device, dtype=dtype, capacity=capacity, centred=self.centred
        )

    def _check_gates(
        self, gates: dict[str, Tensor], shape: tuple[int, ...], like: Tensor | MemoryState
    ) -> None:
        """Check push and pop tensors: shape, and dtype and device as ``like``; then range."""
        what = ("(B,) = ({},)" if len(shape) == 1 else "(B, T) = ({}, {})").format(*shape)
        for name, gate in gates.items():
            check_tensor(name, gate, shape, like.dtype, like.device, what)
            if self.validate:
                check_unit_interval(name, gate)


class OneEndedMemory(Memory):
    """A neural memory that pushes at the top and pops and reads at ``end``.

    The stack's end is the top (last in, first out); the queue's is the bottom (first in,
    first out). The memory has no parameters; device and dtype follow its state and inputs.
    """

    end: S.Side
    kind: Kind

    def step(
        self, state: MemoryState, value: Tensor, push: Tensor, pop: Tensor
    ) -> tuple[Tensor, MemoryState]:
        """Pop ``pop`` (B,), then push ``value`` (B, m) with strength ``push`` (B,), then read.

        Returns the read r_t (B, m) and the new state; ``state`` itself is not changed.
        Under autocast, inputs in its lower dtype are taken in the state's.
        """
        value, push, pop = memory_inputs(state, value, push, pop)
        check_step_values(state, False, value=value)
        self._check_gates({"push": push, "pop": pop}, (state.batch_size,), state)
        s, weights = strength_step(state.strengths, push, pop, self.end)
        buffer, lo, hi = state.buffer.write(state.lo, state.hi, top=value)
        return buffer.read(weights, lo, hi), MemoryState(s, buffer, lo, hi)

    def run(self, values: Tensor, push: Tensor, pop: Tensor) -> Tensor:
        """Run a whole sequence from the empty memory: values (B, T, m), push and pop (B, T).

        Returns the reads (B, T, m). The strengths are stepped with autograd off and keep
        O(T) numbers per step; all T reads are one batched product with the values, which
        are never copied; the backward is Appendix A's (``memrnn.structures.lean``).
        Under autocast, inputs in its lower dtype are taken in float32.
        """
        values, push, pop = (from_autocast(x, torch.float32) for x in (values, push, pop))
        b, t_len, _ = check_sequences(values=values)
        self._check_gates({"push": push, "pop": pop}, (b, t_len), values)
        if t_len == 0:
            return torch.zeros_like(values)
        layout = Layout(self.kind, t_len)
        rows = values.flip(1) if self.kind == "stack" else values
        reads = lean_reads(layout, rows, push.unsqueeze(2), pop.unsqueeze(2))
        return reads[:, :, 0]


def strength_step(s: Tensor, push: Tensor, pop: Tensor, end: S.Side) -> tuple[Tensor, Tensor]:
    """Eqs. (2)/(4) then the read weights of (3)/(5): returns s_t (B, t+1) and the weights."""
    s = torch.cat([S.pop(s, pop, end), push.unsqueeze(1)], dim=1)
    return s, S.read_weights(s, end)


def memory_inputs(state: MemoryState, *inputs: Tensor) -> tuple[Tensor, ...]:
    """A step's values and gates in ``state``'s dtype where autocast lowered them
    (``from_autocast``): the memory's strengths keep their float32 range."""
    dtype = state.dtype if isinstance(state, MemoryState) else None
    return inputs if dtype is None else tuple(from_autocast(x, dtype) for x in inputs)


def check_step_values(state: object, centred: bool, **values: Tensor) -> None:
    """Check that ``state`` is a MemoryState of a deque (``centred``) or of a one-ended
    memory, and each value is (B, m) like it."""
    if not isinstance(state, MemoryState):
        raise TypeError(f"state: expected a MemoryState, got {type(state).__name__}")
    if state.centred != centred:
        mine, theirs = ("a deque's", "a stack's or queue's") if centred else (
            "a stack's or queue's", "a deque's")  # fmt: skip
        raise ValueError(f"state: expected {mine} state, got {theirs}")
    b, m = state.batch_size, state.width
    for name, value in values.items():
        check_tensor(name, value, (b, m), state.dtype, state.device, f"(B, m) = ({b}, {m})")


def check_sequences(**values: Tensor) -> tuple[int, int, int]:
    """Check batches of value sequences (B, T, m), all shaped like the first; return it."""
    (first_name, first), *rest = values.items()
    if not isinstance(first, Tensor):
        raise TypeError(f"{first_name}: expected a torch.Tensor, got {type(first).__name__}")
    if first.ndim != 3:
        raise ValueError(f"{first_name}: expected shape (B, T, m), got {tuple(first.shape)}")
    check_float_dtype(first.dtype)
    b, t_len, m = (int(n) for n in first.shape)
    for name, value in rest:
        what = f"(B, T, m) = ({b}, {t_len}, {m})"
        check_tensor(name, value, (b, t_len, m), first.dtype, first.device, what)
    return b, t_len, m
