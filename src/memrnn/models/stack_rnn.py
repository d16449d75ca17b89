"""The Stack-RNN of Suzgun et al. (2019): a recurrent controller with a superposition stack.

Per step t, with input x_t and the stack's top row s_{t-1}[0]:

    h'_{t-1} = h_{t-1} + W_sh s_{t-1}[0]          the top of the stack feeds the state
    h_t      = cell(x_t, h'_{t-1})                tanh RNN, GRU or LSTM
    y_t      = W_y h_t                            output logits
    a_t      = softmax(W_a h_t)                   (push, pop) weights
    n_t      = sigmoid(W_n h_t)                   the value pushed
    s_t      = a_push * push(s_{t-1}, n_t) + a_pop * pop(s_{t-1})

A baseline of Paassen et al. (2021), Tables 2-5.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import torch
from torch import Tensor, nn

from memrnn.models.cells import gru_step, lstm_step, rnn_step
from memrnn.models.checks import InputKind, as_vectors
from memrnn.models.state import StackRNNState, check_part, check_type
from memrnn.models.trace import Trace
from memrnn.structures.superposition import SuperpositionStack, with_room
from memrnn.validation import check_choice, check_sizes

CellKind = Literal["rnn", "gru", "lstm"]


class SuperpositionStackRNN(nn.Module):
    """A recurrent cell whose state is fed the top of a superposition stack.

    Reads token ids (B, T), one-hot coded, or vectors x_t (B, T, input_size); ``forward``
    gives the logits y_t (B, T, output_size), ``trace`` also the push and pop weights.
    As with ``nn.LSTM``, ``forward(inputs, state)`` starts from a ``StackRNNState`` (None:
    zero h and c and an empty stack, ``initial_state``) and ``stream(inputs, state)``
    also returns the state after the last step.

    Args:
        input_size, output_size: sizes of x_t (the input vocabulary) and y_t.
        hidden_size: units of the cell.
        stack_width: m, the width of each stack row.
        stack_depth: D, rows kept (a push drops the bottom one).
        cell: "rnn" (Suzgun et al.'s), "gru" or "lstm".
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")

    def __init__(
        self,
        input_size: int,
        output_size: int,
        hidden_size: int,
        stack_width: int,
        stack_depth: int,
        *,
        cell: CellKind = "rnn",
    ) -> None:
        super().__init__()
        check_sizes(
            input_size=input_size,
            output_size=output_size,
            hidden_size=hidden_size,
            stack_width=stack_width,
            stack_depth=stack_depth,
        )
        cells = {"rnn": nn.RNNCell, "gru": nn.GRUCell, "lstm": nn.LSTMCell}
        check_choice("cell", cell, cells)
        self.input_size, self.hidden_size = input_size, hidden_size
        self.stack_width, self.stack_depth = stack_width, stack_depth
        self.cell_kind = cell
        self.cell = cells[cell](input_size, hidden_size)
        self.W_sh = nn.Linear(stack_width, hidden_size, bias=False)
        self.W_y = nn.Linear(hidden_size, output_size)
        self.W_a = nn.Linear(hidden_size, 2)
        self.W_n = nn.Linear(hidden_size, stack_width)
        # Weights from a softmax lie in [0, 1] by construction: skip the device sync.
        self.stack = SuperpositionStack(validate=False)

    def initial_state(self, batch_size: int) -> StackRNNState:
        """Zero h (and c) (B, H) and an empty stack (B, D, m)."""
        like = self.W_y.weight
        h = like.new_zeros(batch_size, self.hidden_size)
        c = like.new_zeros(batch_size, self.hidden_size) if self.cell_kind == "lstm" else None
        stack = self.stack.initial_state(batch_size, self.stack_width, self.stack_depth,
                                         device=like.device, dtype=like.dtype)  # fmt: skip
        return StackRNNState(h, c, stack)

    def forward(self, inputs: Tensor, state: StackRNNState | None = None) -> Tensor:
        """The logits y_t (B, T, output_size) for ``inputs`` from ``state``."""
        return self._run(inputs, state)[0].outputs

    def stream(
        self, inputs: Tensor, state: StackRNNState | None = None
    ) -> tuple[Tensor, StackRNNState]:
        """The logits y_t (B, T, output_size) from ``state`` (None: ``initial_state``) and
        the state after the last step.

        Raises:
            ValueError: naming ``inputs``, or ``state`` when it does not fit.
        """
        trace, state = self._run(inputs, state)
        return trace.outputs, state

    def trace(self, inputs: Tensor) -> Trace:
        """The logits and the push and pop weights (B, T) of each step, in one pass."""
        return self._run(inputs, None)[0]

    def _checked(self, state: object, batch: int) -> StackRNNState:
        check_type(state, StackRNNState, "a SuperpositionStackRNN's StackRNNState")
        assert isinstance(state, StackRNNState)
        like, hidden = self.W_y.weight, (batch, self.hidden_size)
        check_part("state.h", state.h, hidden, "(B, H)", like)
        if self.cell_kind == "lstm":
            check_part("state.c", state.c, hidden, "(B, H)", like)
        elif state.c is not None:
            raise ValueError(f"state.c: a {self.cell_kind} cell has no c; expected None")
        stack = (batch, self.stack_depth, self.stack_width)
        check_part("state.stack", state.stack, stack, "(B, D, m)", like)
        return state

    def _run(self, inputs: Tensor, state: StackRNNState | None) -> tuple[Trace, StackRNNState]:
        inputs = as_vectors(inputs, self.input_size, self.W_y.weight)
        b, t_len, _ = inputs.shape
        depth = self.stack_depth
        if state is None:
            h = inputs.new_zeros(b, self.hidden_size)
            c = inputs.new_zeros(b, self.hidden_size) if self.cell_kind == "lstm" else None
            # only the rows that can be nonzero yet (``with_room``)
            stack = inputs.new_zeros(b, 0, self.stack_width)
            filled = 0
        else:
            state = self._checked(state, b)
            h, c, stack = state.h, state.c, state.stack
            filled = depth
        logits, pushes, pops = [], [], []
        for t in range(t_len):
            stack = with_room(stack, filled, depth)
            filled = min(depth, filled + 1)
            h = h + self.W_sh(stack[:, 0])
            if c is not None:
                h, c = lstm_step(self.cell, inputs[:, t], (h, c))
            elif self.cell_kind == "gru":
                h = gru_step(self.cell, inputs[:, t], h)
            else:
                h = rnn_step(self.cell, inputs[:, t], h)
            # in the stack's dtype: autocast computes them in lower precision
            actions = torch.softmax(self.W_a(h), dim=-1).to(stack.dtype)
            value = torch.sigmoid(self.W_n(h)).to(stack.dtype)
            _, stack = self.stack.step(stack, value, actions[:, 0], actions[:, 1])
            logits.append(self.W_y(h))
            pushes.append(actions[:, 0])
            pops.append(actions[:, 1])
        stack = with_room(stack, depth, depth)  # all D rows again
        state = StackRNNState(h, c, stack)
        if t_len == 0:
            empty = inputs.new_zeros(b, 0)
            return Trace(inputs.new_zeros(b, 0, self.W_y.out_features), empty, empty), state
        trace = Trace(torch.stack(logits, 1), torch.stack(pushes, 1), torch.stack(pops, 1))
        return trace, state
