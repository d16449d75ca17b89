"""The recurrent baselines of Ba et al. (2016), Table 1, beside the Fast Weights RNN.

Each reads token ids (B, T), or vectors (B, T, input_size) through the same input
weights, and has the paper's readout (``memrnn.models.readout``):

- ``IRNN`` (Le et al. 2015): h_t = ReLU(W h_{t-1} + C x_t + b) with W initialised to a
  scaled identity.
- ``OneHotLSTM``: a single-layer LSTM on one-hot inputs (the table's LSTM).
- ``AttentionLSTM`` (the paper's A-LSTM): an LSTM that attends over its own past hidden
  states. At step t it reads the context c_{t-1} = sum_tau a_tau h_tau, tau < t, with
  softmax weights a_tau proportional to exp(h_tau . (W_a h_{t-1})), beside its input;
  its features are [h_t; c_t].
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from memrnn.models.checks import as_vectors
from memrnn.models.embedding import InputEmbedding
from memrnn.models.readout import ReadoutRNN, make_readout
from memrnn.validation import check_float


def scaled_identity(layer: nn.Linear, scale: float) -> None:
    """Set a square ``layer`` to ``scale`` times the identity, bias zero (Le et al. 2015)."""
    with torch.no_grad():
        layer.weight.copy_(scale * torch.eye(layer.in_features))
        layer.bias.zero_()


class IRNN(ReadoutRNN):
    """A ReLU RNN with an identity-scaled recurrent matrix (Le et al. 2015).

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
        super().__init__(input_size, output_size, hidden_size, readout)
        check_float("recurrent_scale", recurrent_scale)
        self.C = InputEmbedding(input_size, hidden_size)
        self.W = nn.Linear(hidden_size, hidden_size)
        scaled_identity(self.W, recurrent_scale)
        self.readout = make_readout(hidden_size, readout, output_size)

    def features(self, inputs: Tensor) -> Tensor:
        """The states h_t (B, T, R)."""
        inputs = self.C.sequences(inputs)
        h = inputs.new_zeros(inputs.shape[0], self.hidden_size)
        states = []
        for t in range(inputs.shape[1]):
            h = torch.relu(self.W(h) + inputs[:, t])
            states.append(h)
        return torch.stack(states, dim=1)


class OneHotLSTM(ReadoutRNN):
    """A single-layer LSTM on one-hot inputs, the LSTM of Ba et al. (2016), Table 1, of
    R = ``hidden_size`` units; the arguments are ``ReadoutRNN``'s."""

    def __init__(
        self, input_size: int, output_size: int, hidden_size: int = 20, *, readout: int = 100
    ) -> None:
        super().__init__(input_size, output_size, hidden_size, readout)
        self.lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        self.readout = make_readout(hidden_size, readout, output_size)

    def features(self, inputs: Tensor) -> Tensor:
        """The states h_t (B, T, R)."""
        like = next(self.lstm.parameters())
        states, _ = self.lstm(as_vectors(inputs, self.input_size, like, min_steps=1))
        return states


class AttentionLSTM(ReadoutRNN):
    """An LSTM with soft attention over its own past hidden states (the A-LSTM of Ba et
    al. 2016, Table 1) of R = ``hidden_size`` units; its features are [h_t; c_t],
    (B, T, 2R). The arguments are ``ReadoutRNN``'s."""

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

    def features(self, inputs: Tensor) -> Tensor:
        """[h_t; c_t] (B, T, 2R)."""
        inputs = as_vectors(inputs, self.input_size, self.query.weight, min_steps=1)
        h = inputs.new_zeros(inputs.shape[0], self.hidden_size)
        c, context = torch.zeros_like(h), torch.zeros_like(h)
        past: list[Tensor] = []
        features = []
        for t in range(inputs.shape[1]):
            h, c = self.cell(torch.cat([inputs[:, t], context], dim=1), (h, c))
            past.append(h)
            context = self._context(past, h)
            features.append(torch.cat([h, context], dim=1))
        return torch.stack(features, dim=1)
