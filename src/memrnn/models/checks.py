"""Argument checks the trainable models share, raised with the argument's name."""

from __future__ import annotations

from torch import Tensor


def check_sizes(**sizes: object) -> None:
    """Raise ValueError naming the first size that is not an int >= 1."""
    for name, size in sizes.items():
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"{name}: expected an int >= 1, got {size!r}")


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
