"""Input checks the trainable models share, raised with the argument's name, and the
input kinds a model accepts; their size checks are :func:`memrnn.validation.check_sizes`."""

from __future__ import annotations

from typing import Literal, TypeGuard

import torch.nn.functional as F
from torch import Tensor

from memrnn.structures.checks import check_token_ids

InputKind = Literal["tokens", "vectors"]
"""What a model reads: ``"tokens"``, integer ids (B, T); ``"vectors"``, float (B, T, F)."""


def check_inputs(inputs: object, input_size: int, like: Tensor, *, min_steps: int = 0) -> Tensor:
    """Check a batch (B, T, input_size), T >= ``min_steps``, with the dtype and device of
    the parameter ``like``.

    Nothing is converted: a mismatch is an error, so no copy or cast happens unseen.
    """
    if (
        not isinstance(inputs, Tensor)
        or inputs.ndim != 3
        or inputs.shape[2] != input_size
        or inputs.shape[1] < min_steps
    ):
        got = tuple(inputs.shape) if isinstance(inputs, Tensor) else type(inputs).__name__
        steps = f" with T >= {min_steps}" if min_steps else ""
        raise ValueError(f"inputs: expected shape (B, T, {input_size}){steps}, got {got}")
    if inputs.dtype != like.dtype or inputs.device != like.device:
        raise ValueError(
            f"inputs: {inputs.dtype} on {inputs.device}, but the model is "
            f"{like.dtype} on {like.device}"
        )
    return inputs


def is_token_ids(inputs: object) -> TypeGuard[Tensor]:
    """Whether ``inputs`` is meant as token ids (B, T), not vectors: a tensor whose dtype
    is not a floating-point one (its shape is for ``check_token_ids`` to judge)."""
    return isinstance(inputs, Tensor) and not inputs.is_floating_point()


def as_vectors(inputs: object, input_size: int, like: Tensor, *, min_steps: int = 0) -> Tensor:
    """The input vectors (B, T, input_size), T >= ``min_steps``, of a model that reads
    both kinds of input.

    Token ids (B, T), an integer tensor, are one-hot coded in the dtype of the parameter
    ``like`` (the vectors the same model reads for a one-hot task); float vectors are
    checked by ``check_inputs`` and used as they are.
    """
    if is_token_ids(inputs):
        check_token_ids(inputs, input_size, min_steps=min_steps)
        return F.one_hot(inputs.long(), input_size).to(like.dtype)
    return check_inputs(inputs, input_size, like, min_steps=min_steps)
