"""The GRU baseline network of Paassen et al. (2021)."""

from __future__ import annotations

import pytest
import torch

from memrnn.models.gru import GRUNetwork


def test_tokens_are_read_as_one_hot_vectors() -> None:
    torch.manual_seed(0)
    model = GRUNetwork(4, 3, 6)
    tokens = torch.tensor([[0, 3, 1], [2, 2, 0]])
    out = model(tokens)
    assert out.shape == (2, 3, 3)
    assert torch.equal(out, model(torch.nn.functional.one_hot(tokens, 4).float()))


def test_causal_and_bad_input() -> None:
    torch.manual_seed(1)
    model = GRUNetwork(2, 1, 5)
    x = torch.randn(1, 6, 2)
    torch.testing.assert_close(model(x)[:, :4], model(x[:, :4]))
    with pytest.raises(ValueError, match=r"inputs: expected shape \(B, T, 2\)"):
        model(torch.randn(1, 6, 3))
    with pytest.raises(ValueError, match="hidden_size: expected an int >= 1, got 0"):
        GRUNetwork(2, 1, 0)


def test_an_empty_sequence_is_refused_by_name() -> None:
    # torch's GRU raised "Expected sequence length to be larger than 0 in RNN"
    with pytest.raises(ValueError, match=r"inputs: expected a \(B, T\) tensor of ids with T >= 1"):
        GRUNetwork(2, 1, 5)(torch.zeros(1, 0, dtype=torch.long))
    with pytest.raises(ValueError, match=r"inputs: expected shape \(B, T, 2\) with T >= 1"):
        GRUNetwork(2, 1, 5)(torch.zeros(1, 0, 2))
