"""Dyck language modelling: the LSTM LM's shapes, perplexity and the bracket-closing metric."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import Tensor, nn

from memrnn.constructions import build
from memrnn.languages.dyck import make_splits
from memrnn.models.lstm_lm import LSTMLanguageModel
from memrnn.tasks.dyck_lm import PAD, bracket_closing, close_distances, pad, perplexity


class Oracle(nn.Module):
    """Log-probabilities of a hand-built generator, in the LM's (B, T, V) layout."""

    def __init__(self, k: int, m: int) -> None:
        super().__init__()
        self.net = build("lstm-onehot", k, m)

    def forward(self, tokens: Tensor) -> Tensor:
        probs = self.net(tokens.clamp(min=0))[:, :-1]
        return torch.log(probs.clamp(min=1e-30))


class Uniform(nn.Module):
    def __init__(self, vocabulary: int) -> None:
        super().__init__()
        self.vocabulary = vocabulary

    def forward(self, tokens: Tensor) -> Tensor:
        return torch.zeros(*tokens.shape, self.vocabulary)


def test_close_distances_by_hand() -> None:
    # k = 2: ( [ ] ) ( ) end  ->  closes at 2 (distance 0), 3 (distance 2), 5 (distance 0)
    assert close_distances(np.array([0, 1, 3, 2, 0, 2, 4]), 2) == [(2, 1, 0), (3, 0, 2), (5, 0, 0)]
    with pytest.raises(ValueError, match="does not match"):
        close_distances(np.array([0, 3, 4]), 2)


def test_a_perfect_model_closes_every_bracket() -> None:
    splits = make_splits(3, 3, 0, 300, 100, 600)
    scores = bracket_closing(Oracle(3, 3), list(splits.test), 3)
    assert scores.mean == 1.0
    assert all(confident == total for confident, total in scores.by_distance.values())
    assert max(scores.by_distance) > 20  # the test strings are long


def test_a_uniform_model_closes_nothing_and_has_perplexity_v() -> None:
    splits = make_splits(2, 3, 1, 300, 100, 300)
    assert bracket_closing(Uniform(5), list(splits.dev), 2).mean == 0.0  # 1/2 < 0.8
    assert perplexity(Uniform(5), list(splits.dev)) == pytest.approx(5.0)


def test_lm_shapes_and_causality() -> None:
    torch.manual_seed(0)
    model = LSTMLanguageModel(5, 14, 6)
    tokens = pad([np.array([0, 1, 3, 2, 4]), np.array([4])])
    assert tokens[1].tolist() == [4, PAD, PAD, PAD, PAD]
    logits = model(tokens)
    assert logits.shape == (2, 5, 5)
    # position t sees tokens < t only: changing the last token changes nothing
    changed = tokens.clone()
    changed[0, 4] = 0
    torch.testing.assert_close(model(changed), logits)
    # row 0 is the same for every string: the zero state
    torch.testing.assert_close(logits[0, 0], logits[1, 0])
    assert model(torch.tensor([[4]])).shape == (1, 1, 5)
    with pytest.raises(ValueError, match="tokens: expected a"):
        model(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="hidden: expected an int >= 1"):
        LSTMLanguageModel(5, 14, 0)
