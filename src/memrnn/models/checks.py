"""Input checks the trainable models share, raised with the argument's name, and the
input kinds a model accepts; their size checks are :func:`memrnn.validation.check_sizes`.

Every check runs once per call, never per time step, and reads at most one pair of
numbers back from the device (the smallest and largest token id, one reduction): shapes,
dtypes and devices are free to check. Under ``torch.compile`` that read would break the
graph, so there the range becomes an assertion computed with the graph (no read back; a
bad id raises a RuntimeError when the graph runs, without naming the id).
"""

from __future__ import annotations

from typing import Literal, TypeGuard

import torch
import torch.nn.functional as F
from torch import Tensor

from memrnn.validation import check_choice

InputKind = Literal["tokens", "vectors"]
"""What a model reads: ``"tokens"``, integer ids (B, T); ``"vectors"``, float (B, T, F)."""

ID_DTYPES = (torch.int64, torch.int32)


def check_token_ids(
    tokens: object,
    vocabulary: int,
    *,
    name: str = "tokens",
    min_steps: int = 0,
    pad: int | None = None,
    one_step: bool = False,
) -> Tensor:
    """``tokens``, checked: a (B, T) tensor of int64 or int32 ids (B, for ``one_step``),
    T >= ``min_steps``, each in 0 .. vocabulary - 1 or equal to ``pad``, the padding id
    (None for none, or -1, so that the ids allowed form one range).

    Raises:
        ValueError: naming ``name`` and, for an id out of range, the id and the vocabulary.
    """
    check_choice("pad", pad, (None, -1))
    ndim, what = (1, "(B,)") if one_step else (2, "(B, T)")
    if (
        not isinstance(tokens, Tensor)
        or tokens.ndim != ndim
        or (not one_step and tokens.shape[1] < min_steps)
    ):
        shape = tuple(tokens.shape) if isinstance(tokens, Tensor) else type(tokens).__name__
        steps = f" with T >= {min_steps}" if min_steps and not one_step else ""
        raise ValueError(f"{name}: expected a {what} tensor of ids{steps}, got {shape}")
    if tokens.dtype not in ID_DTYPES:
        raise ValueError(
            f"{name}: expected a {what} tensor of int64 or int32 ids, got {tokens.dtype}"
        )
    if tokens.numel() == 0:
        return tokens
    lowest = 0 if pad is None else pad
    if torch._C._functorch.is_batchedtensor(tokens):
        return tokens  # under vmap: the caller checks the whole stack of inputs at once
    if torch.compiler.is_compiling():
        inside = ((tokens >= lowest) & (tokens < vocabulary)).all()
        torch._assert_async(inside, f"{name}: ids must lie in {lowest} .. {vocabulary - 1}")
        return tokens
    low, high = torch.stack(torch.aminmax(tokens)).tolist()  # one reduction, one read back
    if low < lowest or high >= vocabulary:
        bad = low if low < lowest else high
        padding = "" if pad is None else f" or the padding id {pad}"
        raise ValueError(
            f"{name}: ids must lie in 0 .. {vocabulary - 1}{padding} (a vocabulary of "
            f"{vocabulary}), found {bad}"
        )
    return tokens


def check_inputs(
    inputs: object,
    input_size: int,
    like: Tensor,
    *,
    min_steps: int = 0,
    name: str = "inputs",
    one_step: bool = False,
) -> Tensor:
    """Check a batch of vectors (B, T, input_size), T >= ``min_steps`` ((B, input_size)
    for ``one_step``), with the dtype and device of the parameter ``like``.

    Nothing is converted: a mismatch is an error, so no copy or cast happens unseen.
    """
    ndim = 2 if one_step else 3
    if (
        not isinstance(inputs, Tensor)
        or inputs.ndim != ndim
        or inputs.shape[-1] != input_size
        or (not one_step and inputs.shape[1] < min_steps)
    ):
        got = tuple(inputs.shape) if isinstance(inputs, Tensor) else type(inputs).__name__
        steps = f" with T >= {min_steps}" if min_steps and not one_step else ""
        shape = f"(B, {input_size})" if one_step else f"(B, T, {input_size})"
        raise ValueError(f"{name}: expected shape {shape}{steps}, got {got}")
    if inputs.dtype != like.dtype or inputs.device != like.device:
        raise ValueError(
            f"{name}: {inputs.dtype} on {inputs.device}, but the model is "
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

    Raises:
        ValueError: naming ``inputs``: a shape, dtype or device that does not fit, or a
            token id outside the vocabulary of ``input_size`` ids.
    """
    if is_token_ids(inputs):
        check_token_ids(inputs, input_size, name="inputs", min_steps=min_steps)
        return F.one_hot(inputs.long(), input_size).to(like.dtype)
    return check_inputs(inputs, input_size, like, min_steps=min_steps)
