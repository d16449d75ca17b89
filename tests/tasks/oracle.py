"""A Dyck-(k,m) language model that is never wrong, for the tests of the metrics."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from memrnn.constructions import build


class Oracle(nn.Module):
    """Log-probabilities of a hand-built generator (Hewitt et al. 2020, Theorem 3), in the
    LM's (B, T, V) layout: position t's distribution of token t given the tokens before."""

    def __init__(self, k: int, m: int) -> None:
        super().__init__()
        self.net = build("lstm-onehot", k, m)

    def forward(self, tokens: Tensor) -> Tensor:
        probs = self.net(tokens.clamp(min=0))[:, :-1]
        return torch.log(probs.clamp(min=1e-30))
