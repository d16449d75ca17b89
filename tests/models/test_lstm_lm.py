"""The LSTM language model of Hewitt et al. (2020) refuses token ids it cannot read at its
boundary, naming the id and the vocabulary, where torch's embedding would raise an
IndexError or the last token would be scored without a check. Its shapes, causality and
initialisation: tests/tasks/test_dyck_lm.py."""

from __future__ import annotations

import re

import pytest
import torch

from memrnn.models.lstm_lm import LSTMLanguageModel


def _model() -> LSTMLanguageModel:
    torch.manual_seed(0)
    return LSTMLanguageModel(5, 4, 3)


@pytest.mark.parametrize(
    ("tokens", "bad"),
    [
        ([[7, 0, 1]], 7),  # read by the embedding
        ([[0, 1, 7]], 7),  # the last token: only a target
        ([[0, 5, 1]], 5),  # the start symbol is no input
        ([[-5, 1, 2]], -5),  # only -1 pads
        ([[0, 1, 2], [0, 1, 99]], 99),
    ],
)
def test_ids_outside_the_vocabulary_are_named(tokens: list[list[int]], bad: int) -> None:
    vocabulary = "0 .. 4 or the padding id -1 (a vocabulary of 5)"
    message = f"tokens: ids must lie in {vocabulary}, found {bad}"
    with pytest.raises(ValueError, match=re.escape(message)):
        _model()(torch.tensor(tokens))


def test_padding_after_the_end_is_read() -> None:
    model = _model()
    assert model(torch.tensor([[0, 2, 4, -1, -1]])).shape == (1, 5, 6)
    assert model(torch.tensor([[0, 2, 4]], dtype=torch.int32)).shape == (1, 3, 6)


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        ([[0, 1]], "tokens: expected a (B, T) tensor of ids with T >= 1, got list"),
        (torch.zeros(2, 0, dtype=torch.long), "with T >= 1, got (2, 0)"),
        (torch.zeros(2, 3), "tokens: expected a (B, T) tensor of int64 or int32 ids"),
        (torch.zeros(2, 3, 1, dtype=torch.long), "got (2, 3, 1)"),
    ],
)
def test_bad_shapes_and_dtypes_are_named(tokens: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        _model()(tokens)  # type: ignore[arg-type]
