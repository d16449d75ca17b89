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
from typing import Any, ClassVar, cast

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.models.checks import InputKind, as_vectors
from memrnn.models.state import TapeState, check_part, check_type
from memrnn.validation import check_int, check_sizes

SHIFTS = ("stay", "left", "right", "jump left", "jump right")


def tape_sources(length: Tensor, size: int) -> tuple[Tensor, Tensor]:
    """For each row b's input length ``length[b]`` (B,) int, the rows of the flattened
    tapes (B M, c) that the five moves read, (B, 5 M): b M + (m - s_k) mod M, so that
    moved_k = roll(written_b, s_k); and the rows that undo them, b M + (m + s_k) mod M."""
    cells = torch.arange(size, device=length.device)
    zero, one = torch.zeros_like(length), torch.ones_like(length)
    shifts = torch.stack([zero, -one, one, -length, length], dim=1)[..., None]  # (B, 5, 1)
    rows = torch.arange(len(length), device=length.device)[:, None, None] * size
    return (
        (rows + (cells - shifts) % size).flatten(1),
        (rows + (cells + shifts) % size).flatten(1),
    )


def tape_step(
    tape: Tensor, actions: Tensor, write: Tensor, sources: tuple[Tensor, Tensor]
) -> Tensor:
    """The tape after one step: cell 0 of ``tape`` (B, M, c) set to ``write`` (B, c), then
    each row's five moves mixed by ``actions`` (B, 5); ``sources`` from ``tape_sources``."""
    written = torch.cat([write[:, None], tape[:, 1:]], dim=1)
    return _Mix.apply(written, actions, *sources)


def _moved(tape: Tensor, rows: Tensor) -> Tensor:
    """The five moves of each tape (B, M, c), (B, 5, M c): one selection of rows."""
    batch, size, width = tape.shape
    moved = tape.reshape(batch * size, width).index_select(0, rows.flatten())
    return moved.view(batch, len(SHIFTS), size * width)


class _Mix(torch.autograd.Function):
    """sum_k a_k roll(written, s_k). Each move is a permutation, so the gradient is the
    same selection with the inverse moves, where autograd's own would scatter
    (``benchmarks/tape_step.py``)."""

    @staticmethod
    def vmap(info: Any, in_dims: tuple[int | None, ...], *args: Tensor) -> tuple[Tensor, int]:
        """K members' steps as one of K B rows (``models.grouped``), whose rows b M + m
        become k B M + b M + m; vmap's own rule would make each selection a gather."""
        members = info.batch_size
        written, actions, sources, inverse = (
            arg.expand(members, *arg.shape) if dim is None else arg.movedim(dim, 0)
            for arg, dim in zip(args, in_dims, strict=True)
        )
        batch, size = written.shape[1:3]
        offsets = torch.arange(members, device=sources.device)[:, None, None] * batch * size
        out = _Mix.apply(
            written.flatten(0, 1),
            actions.flatten(0, 1),
            (sources + offsets).flatten(0, 1),
            (inverse + offsets).flatten(0, 1),
        )
        return out.view(members, batch, *out.shape[1:]), 0

    @staticmethod
    def forward(written: Tensor, actions: Tensor, sources: Tensor, inverse: Tensor) -> Tensor:
        moved = _moved(written, sources)
        return torch.bmm(actions[:, None], moved).view_as(written)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Tensor, ...], output: Tensor) -> None:
        written, actions, _, inverse = inputs
        ctx.save_for_backward(written, actions, inverse)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, None, None]:
        written, actions, inverse = ctx.saved_tensors
        undone = _moved(grad.contiguous(), inverse)  # (B, 5, M c)
        grad_written = torch.bmm(actions[:, None], undone).view_as(written)
        grad_actions = (undone * written.reshape(len(written), 1, -1)).sum(-1)  # not bmm: slower
        return grad_written, grad_actions, None, None


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
        sources = tape_sources(length, self.tape_size)
        # The input's part of the RNN and the readout are outside the time loop, and the
        # action logits share one product with the MLP's first layer.
        cell, first, rest = self.cell, cast(nn.Linear, self.write[0]), self.write[1:]
        w_x, w_m = cell.weight_ih.split([self.input_size, self.cell_size], dim=1)
        inputs_part = F.linear(x, w_x, cell.bias_ih + cell.bias_hh).unbind(1)
        heads = torch.cat([self.actions.weight, first.weight])
        heads_bias = torch.cat([self.actions.bias, first.bias])
        states, taken = [], []
        for part in inputs_part:
            h = torch.tanh(part + F.linear(tape[:, 0], w_m) + F.linear(h, cell.weight_hh))
            logits, hidden = F.linear(h, heads, heads_bias).split(
                [len(SHIFTS), first.out_features], dim=1
            )
            actions = torch.softmax(logits, dim=-1)
            tape = tape_step(tape, actions, rest(hidden), sources)
            states.append(h)
            taken.append(actions)
        if not states:
            none = x.new_zeros(batch, 0, len(SHIFTS))
            return x.new_zeros(batch, 0, self.output_size), state, none
        outputs = self.readout(torch.relu(torch.stack(states, 1)))
        return outputs, TapeState(h, tape, length), torch.stack(taken, 1)
