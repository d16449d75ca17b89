"""The neural double-ended queue of Grefenstette et al. (2015), Eqs. (6)-(11)."""

from __future__ import annotations

import torch
from torch import Tensor

from memrnn.structures import strengths as S
from memrnn.structures.base import Memory, check_sequences, check_step_values, memory_inputs
from memrnn.structures.layout import Layout
from memrnn.structures.lean import lean_reads
from memrnn.structures.precision import from_autocast
from memrnn.structures.state import MemoryState

_GATES = ("push_top", "push_bot", "pop_top", "pop_bot")


class NeuralDeque(Memory):
    """A differentiable deque: push, pop and read at both the top and the bottom.

    Each step pops u^top from the top, then u^bot from the bottom, then pushes v^bot at
    the bottom and v^top at the top with strengths d^bot and d^top, then reads one unit of
    strength from each end (Eqs. 6-11). The state holds 2t rows after t steps.

    Args:
        validate: check that every push and pop lies in [0, 1] and holds no NaN (one read
            back from the device per call).
    """

    centred = True

    def step(
        self,
        state: MemoryState,
        value_top: Tensor,
        value_bot: Tensor,
        push_top: Tensor,
        push_bot: Tensor,
        pop_top: Tensor,
        pop_bot: Tensor,
    ) -> tuple[tuple[Tensor, Tensor], MemoryState]:
        """One step; values are (B, m), pushes and pops (B,).

        Returns ((read_top, read_bot), new_state), each read (B, m). Under autocast,
        inputs in its lower dtype are taken in the state's.
        """
        value_top, value_bot, push_top, push_bot, pop_top, pop_bot = memory_inputs(
            state, value_top, value_bot, push_top, push_bot, pop_top, pop_bot
        )
        check_step_values(state, True, value_top=value_top, value_bot=value_bot)
        gates = (push_top, push_bot, pop_top, pop_bot)
        self._check_gates(dict(zip(_GATES, gates, strict=True)), (state.batch_size,), state)
        s, w_top, w_bot = _strength_step(state.strengths, *gates)
        buffer, lo, hi = state.buffer.write(state.lo, state.hi, bottom=value_bot, top=value_top)
        reads = (buffer.read(w_top, lo, hi), buffer.read(w_bot, lo, hi))
        return reads, MemoryState(s, buffer, lo, hi, centred=True)

    def run(
        self,
        values_top: Tensor,
        values_bot: Tensor,
        push_top: Tensor,
        push_bot: Tensor,
        pop_top: Tensor,
        pop_bot: Tensor,
    ) -> tuple[Tensor, Tensor]:
        """Run whole sequences: values (B, T, m), pushes and pops (B, T).

        Returns (reads_top, reads_bot), each (B, T, m). Under autocast, inputs in its
        lower dtype are taken in float32.
        """
        values_top, values_bot, push_top, push_bot, pop_top, pop_bot = (
            from_autocast(x, torch.float32)
            for x in (values_top, values_bot, push_top, push_bot, pop_top, pop_bot)
        )
        b, t_len, _ = check_sequences(values_top=values_top, values_bot=values_bot)
        gates = (push_top, push_bot, pop_top, pop_bot)
        self._check_gates(dict(zip(_GATES, gates, strict=True)), (b, t_len), values_top)
        if t_len == 0:
            return torch.zeros_like(values_top), torch.zeros_like(values_bot)
        # Eq. (6)'s rows at the last step: bottom values newest first, then top values
        # oldest first; see ``memrnn.structures.layout``.
        rows = torch.cat([values_bot.flip(1), values_top], dim=1)
        push = torch.stack([push_top, push_bot], dim=2)
        pop = torch.stack([pop_top, pop_bot], dim=2)
        reads = lean_reads(Layout("deque", t_len), rows, push, pop)
        return reads[:, :, 0], reads[:, :, 1]


def _strength_step(
    s: Tensor, push_top: Tensor, push_bot: Tensor, pop_top: Tensor, pop_bot: Tensor
) -> tuple[Tensor, Tensor, Tensor]:
    """Eqs. (7)-(9), then the read weights of (10) and (11)."""
    s = S.pop(S.pop(s, pop_top, "top"), pop_bot, "bottom")
    s = torch.cat([push_bot.unsqueeze(1), s, push_top.unsqueeze(1)], dim=1)
    return s, S.read_weights(s, "top"), S.read_weights(s, "bottom")
