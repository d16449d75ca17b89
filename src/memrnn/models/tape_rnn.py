"""The Tape-RNN of Delétang et al. (2023), *Neural Networks and the Chomsky Hierarchy*,
section 4: a tanh RNN that reads and writes a tape of M cells of width c.

Per step t, with input x_t, the cell under the head tape_{t-1}[0] and the input length L
(the steps before the first answer step):

    h_t       = tanh(W [x_t; tape_{t-1}[0]] + U h_{t-1} + b)
    w_t       = MLP(h_t)                            the value written, (c,)
    a_t       = softmax(W_a h_t)                    five actions
    written   = tape_{t-1} with cell 0 set to w_t
    tape_t    = sum_k a_t[k] roll(written, s_k),    s = (0, -1, +1, -L, +L)
    y_t       = W_y relu(h_t)

so that each action writes and then stays, moves one cell left or right, or jumps L cells
left or right (their ``TapeInputLengthJumpCore``); roll(v, s)[m] = v[(m - s) mod M], a
tape that wraps round. The MLP has ReLU between its layers and none after the last, as
Haiku's ``hk.nets.MLP``. The paper's sizes: H = 256, c = 8, M = 40, MLP (64, 64).

The input length is what the authors pass the model beside its input; here the model
finds it in its input, as the step of the first ``length_token`` (the blank that the
tasks of ``memrnn.tasks.chomsky`` put on the answer steps), or the whole sequence when
the token is not given or never comes.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import ClassVar

import torch
from torch import Tensor, nn

from memrnn.models.cells import rnn_step
from memrnn.models.checks import InputKind, as_vectors
from memrnn.models.state import TapeState, check_part, check_type
from memrnn.validation import check_int, check_sizes

SHIFTS = ("stay", "left", "right", "jump left", "jump right")


def tape_step(tape: Tensor, actions: Tensor, write: Tensor, length: Tensor) -> Tensor:
    """The tape after one step: cell 0 of ``tape`` (B, M, c) set to ``write`` (B, c), then
    each row's five moves mixed by ``actions`` (B, 5); ``length`` (B,) int, the jumps."""
    written = torch.cat([write[:, None], tape[:, 1:]], dim=1)
    size = tape.shape[1]
    cells = torch.arange(size, device=tape.device)
    moved = [written, written.roll(-1, dims=1), written.roll(1, dims=1)]
    for sign in (-1, 1):  # roll by sign * L, L per row: new[m] = written[(m - sign L) mod M]
        source = (cells[None, :] - sign * length[:, None]) % size
        moved.append(written.gather(1, source[..., None].expand_as(written)))
    return torch.einsum("bk,kbmc->bmc", actions, torch.stack(moved))


class TapeRNN(nn.Module):
    """The Tape-RNN: reads token ids (B, T), one-hot coded, or vectors (B, T, input_size);
    ``forward`` gives the logits (B, T, output_size). As with
    ``nn.LSTM``, ``forward(inputs, state)`` starts from a ``TapeState`` (None: zero h, an
    empty tape and the input length found in ``inputs``) and ``stream`` also returns the
    state after the last step.

    Args:
        input_size, output_size: sizes of x_t (the input vocabulary) and y_t.
        hidden_size: H, units of the tanh RNN.
        cell_size: c, the width of a tape cell.
        tape_size: M, the cells of the tape.
        mlp: the hidden layers of the MLP that writes.
        length_token: the input id (a one-hot column for vectors) whose first step ends
            the input; None: the input is the whole sequence.
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")

    def __init__(
        self,
        input_size: int,
        output_size: int,
        hidden_size: int = 256,
        *,
        cell_size: int = 8,
        tape_size: int = 40,
        mlp: Sequence[int] = (64, 64),
        length_token: int | None = None,
    ) -> None:
        super().__init__()
        check_sizes(input_size=input_size, output_size=output_size, hidden_size=hidden_size,
                    cell_size=cell_size, tape_size=tape_size)  # fmt: skip
        mlp = tuple(check_int(f"mlp[{i}]", n, 1) for i, n in enumerate(mlp))
        if length_token is not None:
            check_int("length_token", length_token, 0, maximum=input_size - 1)
        self.input_size, self.hidden_size, self.output_size = input_size, hidden_size, output_size
        self.cell_size, self.tape_size, self.length_token = cell_size, tape_size, length_token
        self.cell = nn.RNNCell(input_size + cell_size, hidden_size)
        widths = (hidden_size, *mlp, cell_size)
        layers: list[nn.Module] = []
        for i, (a, b) in enumerate(itertools.pairwise(widths)):
            layers += [nn.Linear(a, b)] + ([nn.ReLU()] if i < len(widths) - 2 else [])
        self.write = nn.Sequential(*layers)
        self.actions = nn.Linear(hidden_size, len(SHIFTS))
        self.readout = nn.Linear(hidden_size, output_size)

    def initial_state(self, batch_size: int, length: Tensor | None = None) -> TapeState:
        """Zero h (B, H), a zero tape (B, M, c) and the input length (B,) (default 0)."""
        like = self.readout.weight
        lengths = like.new_zeros(batch_size, dtype=torch.long) if length is None else length
        tape = like.new_zeros(batch_size, self.tape_size, self.cell_size)
        return TapeState(like.new_zeros(batch_size, self.hidden_size), tape, lengths)

    def input_length(self, vectors: Tensor) -> Tensor:
        """The steps (B,) before the first ``length_token`` of each row, or T."""
        steps = vectors.shape[1]
        if self.length_token is None:
            return torch.full(vectors.shape[:1], steps, dtype=torch.long, device=vectors.device)
        marked = vectors[..., self.length_token] > 0.5
        first = torch.where(marked, torch.arange(steps, device=vectors.device), steps)
        return first.min(dim=1).values

    def forward(self, inputs: Tensor, state: TapeState | None = None) -> Tensor:
        """The logits y_t (B, T, output_size) for ``inputs`` from ``state``."""
        return self._run(inputs, state)[0]

    def moves(self, inputs: Tensor) -> Tensor:
        """The weights a_t (B, T, 5) of the five actions at each step (``SHIFTS``), from
        the initial state, in the same pass as ``forward``."""
        return self._run(inputs, None)[2]

    def stream(self, inputs: Tensor, state: TapeState | None = None) -> tuple[Tensor, TapeState]:
        """The logits (B, T, output_size) from ``state`` and the state after the last step.

        Raises:
            ValueError: naming ``inputs``, or ``state`` when it does not fit.
        """
        logits, state, _ = self._run(inputs, state)
        return logits, state

    def _run(self, inputs: Tensor, state: TapeState | None) -> tuple[Tensor, TapeState, Tensor]:
        x = as_vectors(inputs, self.input_size, self.readout.weight)
        batch = x.shape[0]
        if state is None:
            state = self.initial_state(batch, self.input_length(x))
        else:
            check_type(state, TapeState, "a TapeRNN's TapeState")
            like = self.readout.weight
            check_part("state.h", state.h, (batch, self.hidden_size), "(B, H)", like)
            check_part("state.tape", state.tape, (batch, self.tape_size, self.cell_size),
                       "(B, M, c)", like)  # fmt: skip
            lengths = state.length
            if (
                not isinstance(lengths, Tensor)
                or lengths.shape != (batch,)
                or lengths.dtype != torch.long
            ):
                raise ValueError(f"state.length: expected int64 input lengths ({batch},)")
        h, tape, length = state.h, state.tape, state.length
        logits, taken = [], []
        for x_t in x.unbind(1):
            h = rnn_step(self.cell, torch.cat([x_t, tape[:, 0]], dim=1), h)
            actions = torch.softmax(self.actions(h), dim=-1)
            tape = tape_step(tape, actions, self.write(h), length)
            logits.append(self.readout(torch.relu(h)))
            taken.append(actions)
        if not logits:
            none = x.new_zeros(batch, 0, len(SHIFTS))
            return x.new_zeros(batch, 0, self.output_size), state, none
        return torch.stack(logits, 1), TapeState(h, tape, length), torch.stack(taken, 1)
