"""Dyck language modelling: the LSTM LM's shapes and initialisation, the losses and the
bracket-closing metric."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import Tensor, nn

from memrnn.languages.dyck import make_splits
from memrnn.models.lstm_lm import LSTMLanguageModel
from memrnn.tasks.dyck_lm import (
    PAD,
    batch_mean_loss,
    bracket_closing,
    close_distances,
    loss,
    pad,
    perplexity,
)
from tests.tasks.oracle import Oracle


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


def test_close_distances_at_every_open_prefix_by_hand() -> None:
    # ( [ ] ) ( ) end: positions 1, 2, 3 and 5 follow a prefix with an open bracket
    string = np.array([0, 1, 3, 2, 0, 2, 4])
    assert close_distances(string, 2, every_open_prefix=True) == [
        (1, 0, 0), (2, 1, 0), (3, 0, 2), (5, 0, 0)
    ]  # fmt: skip


def _their_positions(string: list[int], k: int) -> list[tuple[int, int, int]]:
    """The positions the authors' reporter.py scores, written as it walks: the input is a
    start symbol and the string but its last token; after each input symbol, if a bracket
    is open, the next token's distribution is scored at distance (input index - input index
    of the innermost open bracket)."""
    inputs = [-1, *string[:-1]]  # -1: the start symbol
    stack: list[tuple[int, int]] = []  # (input index, bracket)
    scored = []
    for index, symbol in enumerate(inputs):
        if 0 <= symbol < k:
            stack.append((index, symbol))
        elif k <= symbol < 2 * k:
            stack.pop()
        if stack:
            scored.append((index, stack[-1][1], index - stack[-1][0]))
    return scored


def test_every_open_prefix_scores_the_authors_positions() -> None:
    splits = make_splits(3, 3, 4, 2_000, 0, 3_000)
    for string in [*splits.train, *splits.test]:
        ours = close_distances(string, 3, every_open_prefix=True)
        assert ours == _their_positions(string.tolist(), 3)
        closes = set(close_distances(string, 3))
        assert closes <= set(ours)  # every close bracket is scored at both


def test_the_metric_at_every_open_prefix() -> None:
    splits = make_splits(3, 3, 0, 300, 100, 600)
    perfect = bracket_closing(Oracle(3, 3), list(splits.test), 3, every_open_prefix=True)
    assert perfect.mean == 1.0
    closes = bracket_closing(Oracle(3, 3), list(splits.test), 3)
    assert sum(n for _, n in perfect.by_distance.values()) > sum(
        n for _, n in closes.by_distance.values()
    )
    assert bracket_closing(Uniform(7), list(splits.test), 3, every_open_prefix=True).mean == 0.0


def test_batch_mean_loss_weighs_batches_not_tokens() -> None:
    torch.manual_seed(0)
    model = LSTMLanguageModel(5, 14, 6)
    strings = [np.array([4]), np.array([0, 2, 4]), np.array([1, 0, 2, 3, 4]), np.array([4])]
    with torch.no_grad():
        each = [float(loss(model, pad(strings[i : i + 2]))) for i in (0, 2)]
        tokens = float(loss(model, pad(strings)))
    assert batch_mean_loss(model, strings, 2) == pytest.approx(np.mean(each))
    assert batch_mean_loss(model, strings, 4) == pytest.approx(tokens)
    assert batch_mean_loss(model, strings, 2) != pytest.approx(tokens)
    with pytest.raises(ValueError, match="batch: expected an int >= 1, got 0"):
        batch_mean_loss(model, strings, 0)
    with pytest.raises(ValueError, match="strings: expected at least one string"):
        batch_mean_loss(model, [], 10)


def test_lm_shapes_and_causality() -> None:
    torch.manual_seed(0)
    model = LSTMLanguageModel(5, 14, 6)
    tokens = pad([np.array([0, 1, 3, 2, 4]), np.array([4])])
    assert tokens[1].tolist() == [4, PAD, PAD, PAD, PAD]
    logits = model(tokens)
    assert logits.shape == (2, 5, 6)  # the 5 tokens and the start symbol
    # position t sees tokens < t only: changing the last token changes nothing
    changed = tokens.clone()
    changed[0, 4] = 0
    torch.testing.assert_close(model(changed), logits)
    # row 0 is the same for every string: the state after the start symbol
    torch.testing.assert_close(logits[0, 0], logits[1, 0])
    assert model(torch.tensor([[4]])).shape == (1, 1, 6)
    with pytest.raises(ValueError, match="tokens: expected a"):
        model(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="hidden: expected an int >= 1"):
        LSTMLanguageModel(5, 14, 0)


def test_lm_reads_a_start_symbol_first() -> None:
    torch.manual_seed(0)
    model = LSTMLanguageModel(5, 14, 6)
    assert model.start == 5 and model.embed.num_embeddings == 6
    tokens = torch.tensor([[0, 2, 4]])
    before = model(tokens)
    with torch.no_grad():
        model.embed.weight[5] += 1.0  # the start symbol's embedding reaches every position
    after = model(tokens)
    assert not torch.allclose(before[0, 0], after[0, 0])
    assert not torch.allclose(before[0, 2], after[0, 2])


def test_lm_initialisation_follows_the_authors_code() -> None:
    torch.manual_seed(0)
    hidden = 24
    model = LSTMLanguageModel(17, 26, hidden)
    weight = model.readout.weight.detach()
    assert weight.shape == (18, hidden)
    bound = math.sqrt(hidden)
    assert float(weight.abs().max()) <= bound and float(weight.abs().max()) > 0.9 * bound
    assert float(weight.std()) == pytest.approx(bound / math.sqrt(3), rel=0.1)  # uniform
    assert torch.equal(model.readout.bias, torch.zeros(18))
    assert float(model.embed.weight.detach().std()) == pytest.approx(1.0, rel=0.1)  # N(0, 1)
