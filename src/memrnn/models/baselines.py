"""The recurrent baselines of Ba et al. (2016), Table 1, beside the Fast Weights RNN.

Each reads token ids (B, T), or vectors (B, T, input_size) through the same input
weights, and has the paper's readout (``memrnn.models.readout``):

- ``ElmanRNN``: h_t = tanh(W h_{t-1} + C x_t + b), the plain RNN of Delétang et al.'s
  (2023) Table 2.
- ``IRNN`` (Le et al. 2015): h_t = ReLU(W h_{t-1} + C x_t + b) with W initialised to a
  scaled identity.
- ``OneHotLSTM``: a single-layer LSTM on one-hot inputs (the table's LSTM).
- ``AttentionLSTM`` (the paper's A-LSTM): an LSTM that attends over its own past hidden
  states. At step t it reads the context c_{t-1} = sum_tau a_tau h_tau, tau < t, with
  softmax weights a_tau proportional to exp(h_tau . (W_a h_{t-1})), beside its input;
  its features are [h_t; c_t].

Each takes an initial state and streams (``ReadoutRNN``; ``memrnn.models.state``): the
IRNN's is a ``HiddenState``, the LSTM's ``nn.LSTM``'s (h, c), (1, B, R) each, and the
A-LSTM's an ``AttentionState``, which keeps the past hidden states it attends over.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from memrnn.models.cells import lstm_step
from memrnn.models.checks import as_vectors
from memrnn.models.embedding import InputEmbedding
from memrnn.models.lstm_autocast import run_lstm
from memrnn.models.readout import ReadoutRNN, make_readout
from memrnn.models.state import (
    AttentionState,
    HiddenState,
    check_lstm_state,
    check_part,
    check_type,
)
from memrnn.validation import check_choice, check_float


def scaled_identity(layer: nn.Linear, scale: float) -> None:
    """Set a square ``layer`` to ``scale`` times the identity, bias zero (Le et al. 2015)."""
    with torch.no_grad():
        layer.weight.copy_(scale * torch.eye(layer.in_features))
        layer.bias.zero_()


class ElmanRNN(ReadoutRNN[HiddenState]):
    """An Elman RNN, h_t = f(W h_{t-1} + C x_t + b) with f = tanh (the RNN of Delétang et
    al. 2023, Table 2) or ReLU; its state is a ``HiddenState``, h_t (B, R), zero to start.

    Args:
        input_size, output_size, hidden_size, readout: as for ``ReadoutRNN``.
        nonlinearity: f, ``"tanh"`` or ``"relu"``.
        recurrent_scale: W starts as this times the identity, bias zero; None keeps
            ``nn.Linear``'s initialisation.
    """

    def __init__(
        self,
        input_size: int,
        output_size: int,
        hidden_size: int = 20,
        *,
        readout: int = 100,
        nonlinearity: str = "tanh",
        recurrent_scale: float | None = None,
    ) -> None:
        super().__init__(input_size, output_size, hidden_size, readout)
        check_choice("nonlinearity", nonlinearity, ("tanh", "relu"))
        self.nonlinearity = nonlinearity
        self.C = InputEmbedding(input_size, hidden_size)
        self.W = nn.Linear(hidden_size, hidden_size)
        if recurrent_scale is not None:
            check_float("recurrent_scale", recurrent_scale)
            scaled_identity(self.W, recurrent_scale)
        self.readout = make_readout(hidden_size, readout, output_size)

    def initial_state(self, batch_size: int) -> HiddenState:
        """h_0 = 0 for ``batch_size`` sequences."""
        return HiddenState(self.W.weight.new_zeros(batch_size, self.hidden_size))

    def run(self, inputs: Tensor, state: HiddenState | None) -> tuple[Tensor, HiddenState]:
        """The states h_t (B, T, R) from ``state``, and the last."""
        inputs = self.C.sequences(inputs)
        if state is None:
            h = inputs.new_zeros(inputs.shape[0], self.hidden_size)
        else:
            check_type(state, HiddenState, "an RNN's HiddenState")
            shape = (inputs.shape[0], self.hidden_size)
            h = check_part("state.h", state.h, shape, "(B, R)", self.W.weight)
        states = []
        # Unbound once: indexing step t in the loop would give each step's backward a
        # zero tensor of the inputs' size.
        f = torch.tanh if self.nonlinearity == "tanh" else torch.relu
        for x_t in inputs.unbind(1):
            h = f(self.W(h) + x_t)
            states.append(h)
        return torch.stack(states, dim=1), HiddenState(h)


class IRNN(ElmanRNN):
    """A ReLU RNN with an identity-scaled recurrent matrix (Le et al. 2015):
    ``ElmanRNN`` with f = ReLU.

    Args:
        input_size, output_size, hidden_size, readout: as for ``ReadoutRNN``.
        recurrent_scale: W starts as this times the identity.
    """

    def __init__(
        self,
        input_size: int,
        output_size: int,
        hidden_size: int = 20,
        *,
        readout: int = 100,
        recurrent_scale: float = 1.0,
    ) -> None:
        super().__init__(input_size, output_size, hidden_size, readout=readout,
                         nonlinearity="relu", recurrent_scale=recurrent_scale)  # fmt: skip


class OneHotLSTM(ReadoutRNN[tuple[Tensor, Tensor]]):
    """A single-layer LSTM on one-hot inputs, the LSTM of Ba et al. (2016), Table 1, of
    R = ``hidden_size`` units; the arguments are ``ReadoutRNN``'s. Its state is
    ``nn.LSTM``'s (h, c), (1, B, R) each, zero to start."""

    def __init__(
        self, input_size: int, output_size: int, hidden_size: int = 20, *, readout: int = 100
    ) -> None:
        super().__init__(input_size, output_size, hidden_size, readout)
        self.lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        self.readout = make_readout(hidden_size, readout, output_size)

    def initial_state(self, batch_size: int) -> tuple[Tensor, Tensor]:
        """nn.LSTM's zero (h_0, c_0), (1, B, R) each."""
        zeros = next(self.lstm.parameters()).new_zeros(1, batch_size, self.hidden_size)
        return zeros, zeros.clone()

    def run(
        self, inputs: Tensor, state: tuple[Tensor, Tensor] | None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """The states h_t (B, T, R) from ``state``, and nn.LSTM's (h_n, c_n)."""
        like = next(self.lstm.parameters())
        vectors = as_vectors(inputs, self.input_size, like, min_steps=1)
        if state is not None:
            state = check_lstm_state(state, 1, vectors.shape[0], self.hidden_size, like)
        states, last = run_lstm(self.lstm, vectors, state)
        return states, last


class AttentionLSTM(ReadoutRNN[AttentionState]):
    """An LSTM with soft attention over its own past hidden states (the A-LSTM of Ba et
    al. 2016, Table 1) of R = ``hidden_size`` units; its features are [h_t; c_t],
    (B, T, 2R). The arguments are ``ReadoutRNN``'s. Its state is an ``AttentionState``:
    zero h, c and context and no past to start; the past grows by one state per step."""

    def __init__(
        self, input_size: int, output_size: int, hidden_size: int = 20, *, readout: int = 100
    ) -> None:
        super().__init__(input_size, output_size, hidden_size, readout)
        self.cell = nn.LSTMCell(input_size + hidden_size, hidden_size)
        self.query = nn.Linear(hidden_size, hidden_size, bias=False)
        self.readout = make_readout(2 * hidden_size, readout, output_size)

    def _context(self, past: list[Tensor], h: Tensor) -> Tensor:
        if not past:
            return torch.zeros_like(h)
        H = torch.stack(past, dim=1)  # (B, t, R)
        weights = torch.softmax(torch.einsum("btr,br->bt", H, self.query(h)), dim=1)
        return torch.einsum("bt,btr->br", weights, H)

    def initial_state(self, batch_size: int) -> AttentionState:
        """Zero h, c and context (B, R) and no past (B, 0, R)."""
        h = self.query.weight.new_zeros(batch_size, self.hidden_size)
        return AttentionState(h, h.clone(), h.clone(), h.new_zeros(batch_size, 0, h.shape[1]))

    def _checked(self, state: object, batch: int) -> AttentionState:
        check_type(state, AttentionState, "an AttentionLSTM's AttentionState")
        assert isinstance(state, AttentionState)
        like, size = self.query.weight, (batch, self.hidden_size)
        for name in ("h", "c", "context"):
            check_part(f"state.{name}", getattr(state, name), size, "(B, R)", like)
        check_part("state.past", state.past, (*size[:1], None, size[1]), "(B, t, R)", like)
        return state

    def run(self, inputs: Tensor, state: AttentionState | None) -> tuple[Tensor, AttentionState]:
        """[h_t; c_t] (B, T, 2R) from ``state``, and the state after the last step."""
        inputs = as_vectors(inputs, self.input_size, self.query.weight, min_steps=1)
        past: list[Tensor] = []
        if state is None:
            h = inputs.new_zeros(inputs.shape[0], self.hidden_size)
            c, context = torch.zeros_like(h), torch.zeros_like(h)
        else:
            state = self._checked(state, inputs.shape[0])
            h, c, context = state.h, state.c, state.context
            past = list(state.past.unbind(1))
        features = []
        for t in range(inputs.shape[1]):
            h, c = lstm_step(self.cell, torch.cat([inputs[:, t], context], dim=1), (h, c))
            past.append(h)
            context = self._context(past, h)
            features.append(torch.cat([h, context], dim=1))
        return torch.stack(features, dim=1), AttentionState(h, c, context, torch.stack(past, 1))
