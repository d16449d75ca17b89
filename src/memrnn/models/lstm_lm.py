"""The LSTM language model of Hewitt et al. (2020, Appendix H.2), set up as the authors'
code (dyckkm-learning) sets it up.

An embedding of the 2k + 1 tokens and a start symbol (dimension 2k + 10 in the paper), one
LSTM layer and a linear readout to next-token logits. The start symbol is read first, so
position t's distribution comes from the state after the start symbol and tokens
0 .. t - 1, and the first token is predicted too. As in the authors' code the readout also
scores the start symbol (never a target, so training drives its probability down), its
weights start uniform in [-sqrt(hidden), sqrt(hidden)] and its bias at zero; the embedding
and the LSTM keep PyTorch's initialisation (Appendix H.3).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from memrnn.models.checks import check_token_ids
from memrnn.models.lstm_autocast import run_lstm
from memrnn.tasks.dyck_lm import PAD
from memrnn.validation import check_sizes


class LSTMLanguageModel(nn.Module):
    """Next-token logits (B, T, V + 1) for token ids (B, T), position t from the start
    symbol and tokens < t; the last logit is the start symbol's.

    Args:
        vocabulary: V, the number of token ids; the start symbol is id V.
        embedding: the embedding width.
        hidden: the LSTM's units.
    """

    def __init__(self, vocabulary: int, embedding: int, hidden: int) -> None:
        super().__init__()
        check_sizes(vocabulary=vocabulary, embedding=embedding, hidden=hidden)
        self.vocabulary = vocabulary
        self.start = vocabulary
        self.embed = nn.Embedding(vocabulary + 1, embedding)
        self.lstm = nn.LSTM(embedding, hidden, batch_first=True)
        self.readout = nn.Linear(hidden, vocabulary + 1)
        bound = math.sqrt(hidden)
        with torch.no_grad():
            self.readout.weight.uniform_(-bound, bound)
            self.readout.bias.zero_()

    def forward(self, tokens: Tensor) -> Tensor:
        """Next-token logits (B, T, V + 1) for token ids (B, T), T >= 1, each in
        0 .. V - 1 or the padding id -1 (``memrnn.tasks.dyck_lm.PAD``), which may only
        follow a string's end.

        Raises:
            ValueError: naming ``tokens``: not a (B, T) tensor of int64 or int32 ids, or
                an id outside the vocabulary (the start symbol V included), with that id.
        """
        check_token_ids(tokens, self.vocabulary, min_steps=1, pad=PAD)
        start = tokens.new_full((tokens.shape[0], 1), self.start)
        # padding ids are read as token 0: they only follow a string's end
        inputs = torch.cat([start, tokens[:, :-1].clamp(min=0)], dim=1)
        states, _ = run_lstm(self.lstm, self.embed(inputs))
        return self.readout(states)
