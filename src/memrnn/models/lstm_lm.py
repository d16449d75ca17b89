"""The LSTM language model of Hewitt et al. (2020, Appendix H.2).

An embedding of the 2k + 1 tokens (dimension 2k + 10 in the paper), one LSTM layer and a
linear readout to next-token logits. Position t's distribution comes from the state
after tokens 0 .. t - 1; position 0's from the zero state, so the first token is
predicted too.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from memrnn.models.checks import check_sizes


class LSTMLanguageModel(nn.Module):
    """Next-token logits (B, T, V) for token ids (B, T), position t from tokens < t.

    Args:
        vocabulary: V, the number of token ids.
        embedding: the embedding width.
        hidden: the LSTM's units.
    """

    def __init__(self, vocabulary: int, embedding: int, hidden: int) -> None:
        super().__init__()
        check_sizes(vocabulary=vocabulary, embedding=embedding, hidden=hidden)
        self.vocabulary = vocabulary
        self.embed = nn.Embedding(vocabulary, embedding)
        self.lstm = nn.LSTM(embedding, hidden, batch_first=True)
        self.readout = nn.Linear(hidden, vocabulary)

    def forward(self, tokens: Tensor) -> Tensor:
        if tokens.dim() != 2 or tokens.dtype not in (torch.int64, torch.int32):
            raise ValueError(f"tokens: expected a (B, T) integer tensor, got {tuple(tokens.shape)}")
        start = self.readout.weight.new_zeros(tokens.shape[0], 1, self.lstm.hidden_size)
        if tokens.shape[1] == 1:  # a lone token is predicted from the zero state alone
            return self.readout(start)
        # padding ids (negative) are read as token 0: they only follow a string's end
        states, _ = self.lstm(self.embed(tokens[:, :-1].clamp(min=0)))
        return self.readout(torch.cat([start, states], dim=1))
