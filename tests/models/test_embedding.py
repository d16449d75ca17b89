"""InputEmbedding: nn.Embedding's weights and lookups, and the same weights as a linear
layer for vectors (one-hot vectors give the rows exactly); its checks."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from memrnn.models.embedding import InputEmbedding


def test_token_ids_take_the_embeddings_path_with_its_weights() -> None:
    torch.manual_seed(3)
    plain = nn.Embedding(6, 4)
    torch.manual_seed(3)
    layer = InputEmbedding(6, 4)
    assert torch.equal(layer.weight, plain.weight)  # the same initial draw
    assert list(layer.state_dict()) == list(plain.state_dict())
    tokens = torch.tensor([[0, 5, 2], [3, 3, 1]])
    assert torch.equal(layer(tokens), plain(tokens))
    assert torch.equal(layer.sequences(tokens), plain(tokens))
    assert torch.equal(layer(tokens[:, 0]), plain(tokens[:, 0]))  # one step (B,)


def test_one_hot_vectors_give_the_rows_exactly() -> None:
    torch.manual_seed(0)
    layer = InputEmbedding(6, 4)
    tokens = torch.tensor([[0, 5, 2], [3, 3, 1]])
    vectors = nn.functional.one_hot(tokens, 6).float()
    assert torch.equal(layer.sequences(vectors), layer(tokens))
    assert torch.equal(layer(vectors[:, 0]), layer(tokens[:, 0]))
    mixed = torch.tensor([[[0.5, 0.0, 0.0, 0.0, 0.0, 2.0]]])
    expected = 0.5 * layer.weight[0] + 2.0 * layer.weight[5]
    torch.testing.assert_close(layer.sequences(mixed)[0, 0], expected)


def test_vectors_train_the_same_weights() -> None:
    layer = InputEmbedding(3, 2)
    layer.sequences(torch.tensor([[[1.0, 0.0, 0.0]]])).sum().backward()
    assert layer.weight.grad is not None
    assert layer.weight.grad[0].tolist() == [1.0, 1.0]
    assert layer.weight.grad[1:].abs().sum() == 0


def test_bad_inputs_are_named() -> None:
    layer = InputEmbedding(3, 2)
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 2"):
        layer.sequences(torch.tensor([[3]]))
    with pytest.raises(ValueError, match="inputs: expected a"):
        layer.sequences(torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="with T >= 1"):
        layer.sequences(torch.zeros(2, 0, dtype=torch.long))
    with pytest.raises(ValueError, match=r"inputs: expected shape \(B, T, 3\) with T >= 1"):
        layer.sequences(torch.zeros(2, 0, 3))
    with pytest.raises(ValueError, match=r"inputs: expected shape \(B, T, 3\)"):
        layer.sequences(torch.zeros(2, 4, 5))
    with pytest.raises(ValueError, match=r"inputs: torch\.float64 on cpu, but the model is"):
        layer.sequences(torch.zeros(2, 4, 3, dtype=torch.float64))


def test_sizes_below_one_are_refused() -> None:
    with pytest.raises(ValueError, match="num_embeddings: expected an int >= 1, got 0"):
        InputEmbedding(0, 3)
    with pytest.raises(ValueError, match="embedding_dim: expected an int >= 1, got True"):
        InputEmbedding(3, True)


def test_one_step_reads_ids_or_vectors_checked() -> None:
    layer = InputEmbedding(3, 2)
    torch.testing.assert_close(layer.one_step(torch.tensor([2, 0])), layer.weight[[2, 0]])
    torch.testing.assert_close(layer.one_step(torch.eye(3)[[2, 0]]), layer.weight[[2, 0]])
    with pytest.raises(ValueError, match=r"x: ids must lie in 0 \.\. 2 .* found 3"):
        layer.one_step(torch.tensor([3]), "x")
    with pytest.raises(ValueError, match=r"tokens: expected shape \(B, 3\), got \(1, 2\)"):
        layer.one_step(torch.zeros(1, 2))
