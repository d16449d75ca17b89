"""The recurrent baselines of Ba et al. (2016), Table 1, and the readout they share.

Every encoder maps token ids (B, T) to per-step features (B, T, F); ``Retriever`` reads
the last step's features through a hidden ReLU layer into class scores, as the paper's
models do.

- ``IRNN`` (Le et al. 2015): h_t = ReLU(W h_{t-1} + C x_t + b) with W initialised to a
  scaled identity.
- ``LSTMEncoder``: a single-layer LSTM on one-hot inputs.
- ``AttentionLSTM`` (the paper's A-LSTM): an LSTM that attends over its own past hidden
  states. At step t it reads the context c_{t-1} = sum_tau a_tau h_tau, tau < t, with
  softmax weights a_tau proportional to exp(h_tau . (W_a h_{t-1})), beside its input;
  its features are [h_t; c_t].
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.models.fast_weights import FastWeightsRNN
from memrnn.structures.checks import check_token_ids


class IRNN(nn.Module):
    """A ReLU RNN with an identity-scaled recurrent matrix: (B, T) ids to (B, T, R)."""

    def __init__(self, vocab: int, hidden: int, *, recurrent_scale: float = 1.0) -> None:
        super().__init__()
        self.hidden_size = hidden
        self.C = nn.Embedding(vocab, hidden)
        self.W = nn.Linear(hidden, hidden)
        with torch.no_grad():
            self.W.weight.copy_(recurrent_scale * torch.eye(hidden))
            self.W.bias.zero_()

    def forward(self, tokens: Tensor) -> Tensor:
        check_token_ids(tokens, self.C.num_embeddings, min_steps=1)
        inputs = self.C(tokens)
        h = inputs.new_zeros(tokens.shape[0], self.hidden_size)
        states = []
        for t in range(tokens.shape[1]):
            h = torch.relu(self.W(h) + inputs[:, t])
            states.append(h)
        return torch.stack(states, dim=1)


class LSTMEncoder(nn.Module):
    """A single-layer LSTM on one-hot inputs: (B, T) ids to (B, T, R)."""

    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.vocab, self.hidden_size = vocab, hidden
        self.lstm = nn.LSTM(vocab, hidden, batch_first=True)

    def forward(self, tokens: Tensor) -> Tensor:
        check_token_ids(tokens, self.vocab, min_steps=1)
        states, _ = self.lstm(F.one_hot(tokens, self.vocab).to(next(self.lstm.parameters()).dtype))
        return states


class AttentionLSTM(nn.Module):
    """An LSTM with soft attention over its own past hidden states: (B, T) ids to
    (B, T, 2R) features [h_t; c_t]."""

    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.vocab, self.hidden_size = vocab, hidden
        self.cell = nn.LSTMCell(vocab + hidden, hidden)
        self.query = nn.Linear(hidden, hidden, bias=False)

    def _context(self, past: list[Tensor], h: Tensor) -> Tensor:
        if not past:
            return torch.zeros_like(h)
        H = torch.stack(past, dim=1)  # (B, t, R)
        weights = torch.softmax(torch.einsum("btr,br->bt", H, self.query(h)), dim=1)
        return torch.einsum("bt,btr->br", weights, H)

    def forward(self, tokens: Tensor) -> Tensor:
        check_token_ids(tokens, self.vocab, min_steps=1)
        inputs = F.one_hot(tokens, self.vocab).to(self.query.weight.dtype)
        h = inputs.new_zeros(tokens.shape[0], self.hidden_size)
        c, context = torch.zeros_like(h), torch.zeros_like(h)
        past: list[Tensor] = []
        features = []
        for t in range(tokens.shape[1]):
            h, c = self.cell(torch.cat([inputs[:, t], context], dim=1), (h, c))
            past.append(h)
            context = self._context(past, h)
            features.append(torch.cat([h, context], dim=1))
        return torch.stack(features, dim=1)


ENCODERS = ("fast_weights", "irnn", "lstm", "alstm")


class Retriever(nn.Module):
    """An encoder and the readout of Ba et al. (2016): the last step's features through a
    ReLU layer of ``readout`` units, then scores over ``classes``.

    Args:
        encoder: one of ``ENCODERS``.
        vocab, hidden: input symbols and R.
        classes: output classes (10 digits).
        readout: units of the hidden ReLU layer (100).
        **options: passed to the encoder (e.g. ``decay``, ``fast_lr``, ``inner_steps``,
            ``recurrent_scale`` for fast weights).
    """

    def __init__(
        self,
        encoder: str,
        vocab: int,
        hidden: int,
        classes: int = 10,
        readout: int = 100,
        **options: float,
    ) -> None:
        super().__init__()
        self.encoder: nn.Module
        if encoder == "fast_weights":
            self.encoder = FastWeightsRNN(vocab, hidden, **options)  # type: ignore[arg-type]
        elif encoder == "irnn":
            self.encoder = IRNN(vocab, hidden, **options)
        elif encoder in ("lstm", "alstm") and options:
            raise ValueError(f"{encoder}: takes no options, got {sorted(options)}")
        elif encoder == "lstm":
            self.encoder = LSTMEncoder(vocab, hidden)
        elif encoder == "alstm":
            self.encoder = AttentionLSTM(vocab, hidden)
        else:
            raise ValueError(f"encoder: expected one of {', '.join(ENCODERS)}, got {encoder!r}")
        width = 2 * hidden if encoder == "alstm" else hidden
        self.readout = nn.Sequential(
            nn.Linear(width, readout), nn.ReLU(), nn.Linear(readout, classes)
        )

    def forward(self, tokens: Tensor) -> Tensor:
        """Class scores (B, classes) after the last token."""
        return self.readout(self.encoder(tokens)[:, -1])
