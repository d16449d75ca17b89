"""The input checks every model shares: token ids (range, shape, dtype, padding) and
vectors, each raised as a ValueError naming the argument and the offending value."""

from __future__ import annotations

import re

import pytest
import torch

from memrnn.models import LSTMLanguageModel, build_model, model_names
from memrnn.models.checks import as_vectors, check_inputs, check_token_ids
from tests.models.tiny import tiny_options


def test_token_ids_are_checked_at_the_boundary() -> None:
    check_token_ids(torch.zeros(2, 0, dtype=torch.long), 3)  # an empty sequence is allowed
    check_token_ids(torch.zeros(0, 4, dtype=torch.long), 3)  # and an empty batch
    with pytest.raises(ValueError, match="with T >= 1"):
        check_token_ids(torch.zeros(2, 0, dtype=torch.long), 3, min_steps=1)
    with pytest.raises(ValueError, match=r"tokens: expected a \(B, T\) tensor of int64 or int32"):
        check_token_ids(torch.zeros(2, 2), 3)
    with pytest.raises(ValueError, match="got list"):
        check_token_ids([[1]], 3)


@pytest.mark.parametrize(("bad", "dtype"), [(3, torch.int64), (7, torch.int32), (-1, torch.int64)])
def test_an_id_out_of_range_is_named_with_the_vocabulary(bad: int, dtype: torch.dtype) -> None:
    tokens = torch.tensor([[0, 1], [bad, 2]], dtype=dtype)
    message = f"inputs: ids must lie in 0 .. 2 (a vocabulary of 3), found {bad}"
    with pytest.raises(ValueError, match=re.escape(message)):
        check_token_ids(tokens, 3, name="inputs")


def test_the_padding_id_is_allowed_only_where_asked() -> None:
    padded = torch.tensor([[0, 2, -1]])
    assert check_token_ids(padded, 3, pad=-1) is padded
    with pytest.raises(ValueError, match=r"or the padding id -1 .* found -2"):
        check_token_ids(torch.tensor([[0, -2]]), 3, pad=-1)
    with pytest.raises(ValueError, match="found -1"):
        check_token_ids(padded, 3)
    with pytest.raises(ValueError, match="pad: expected one of None, -1, got -5"):
        check_token_ids(padded, 3, pad=-5)


def test_one_step_takes_one_id_per_row() -> None:
    check_token_ids(torch.tensor([0, 2]), 3, one_step=True)
    with pytest.raises(ValueError, match=r"tokens: expected a \(B,\) tensor of ids, got \(1, 2\)"):
        check_token_ids(torch.tensor([[0, 2]]), 3, one_step=True)
    with pytest.raises(ValueError, match="found 3"):
        check_token_ids(torch.tensor([0, 3]), 3, one_step=True)


def test_vectors_are_checked_by_shape_dtype_and_device() -> None:
    like = torch.zeros(1)
    with pytest.raises(ValueError, match=r"inputs: expected shape \(B, T, 3\), got \(2, 4\)"):
        check_inputs(torch.zeros(2, 4), 3, like)
    with pytest.raises(ValueError, match=r"x: expected shape \(B, 3\), got \(2, 4, 3\)"):
        check_inputs(torch.zeros(2, 4, 3), 3, like, name="x", one_step=True)
    with pytest.raises(ValueError, match=r"inputs: expected shape \(B, T, 3\), got \(2, 4, 3, 1\)"):
        as_vectors(torch.zeros(2, 4, 3, 1), 3, like)
    with pytest.raises(ValueError, match="found 5"):
        as_vectors(torch.tensor([[0, 5]]), 3, like)


def test_ids_are_checked_once_per_call_not_per_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """One reduction (and one read back from the device) per forward, whatever T: on a GPU
    a check per step would be a synchronisation per step."""
    calls = []
    aminmax = torch.aminmax

    def counted(x: torch.Tensor) -> object:
        calls.append(x.shape)
        return aminmax(x)

    monkeypatch.setattr(torch, "aminmax", counted)
    tokens = torch.randint(0, 5, (2, 20), generator=torch.Generator().manual_seed(0))
    for name in model_names():
        calls.clear()
        build_model(name, 5, 3, **tiny_options(name))(tokens)
        assert calls == [(2, 20)], name
    calls.clear()
    LSTMLanguageModel(5, 3, 3)(tokens)
    assert calls == [(2, 20)]
