"""Input checks the trainable models share, raised with the argument's name, and the
input kinds a model accepts; their size checks are :func:`memrnn.validation.check_sizes`."""

from __future__ import annotations

from typing import Literal

import torch.nn.functional as F
from torch import Tensor

from memrnn.structures.checks import check_token_ids

InputKind = Literal["tokens", "vectors"]
"""What a model reads: ``"tokens"``, integer ids (B, T); ``"vectors"``, float (B, T, F)."""


def check_inputs(inputs: object, input_size: int, like: Tensor) -> Tensor:
    """Check a batch (B, T, input_size) with the dtype and device of the parameter ``like``.

    Nothing is converted: a mismatch is an error, so no copy or cast happens unseen.
    """
    if not isinstance(inputs, Tensor) or inputs.ndim != 3 or inputs.shape[2] != input_size:
        got = tuple(inputs.shape) if isinstance(inputs, Tensor) else type(inputs).__name__
        raise ValueError(f"inputs: expected shape (B, T, {input_size}), got {got}")
    if inputs.dtype != like.dtype or inputs.device != like.device:
        raise ValueError(
            f"inputs: {inputs.dtype} on {inputs.device}, but the model is "
            f"{like.dtype} on {like.device}"
        )
    return inputs


def as_vectors(inputs: object, input_size: int, like: Tensor) -> Tensor:
    """The input vectors (B, T, input_size) of a model that reads both kinds of input.

    Token ids (B, T), an integer tensor, are one-hot coded in the dtype of the parameter
    ``like`` (the vectors the same model reads for a one-hot task); float vectors are
    checked by ``check_inputs`` and used as they are.
    """
    if isinstance(inputs, Tensor) and inputs.ndim == 2 and not inputs.is_floating_point():
        check_token_ids(inputs, input_size)
        return F.one_hot(inputs.long(), input_size).to(like.dtype)
    return check_inputs(inputs, input_size, like)
