"""Scores every task can give from a model's per-step outputs: which scored steps are
right, the fraction of sequences right at every scored step, and the mean absolute error
of Paassen, Schulz, Hammer (2021, section 4).

All take the outputs (B, T, C), the targets ((B, T) class ids or (B, T, C) values) and
the mask (B, T) of scored steps, and work on the outputs' device.
"""

from __future__ import annotations

import torch
from torch import Tensor

VALUE_TOLERANCE = 0.5  # a real output is right when within this of its target


def check_outputs(outputs: object, mask: Tensor, output_size: int) -> Tensor:
    """``outputs`` itself, after checking that it is a float tensor (B, T, output_size)
    with (B, T) the shape of ``mask``.

    Raises:
        ValueError: naming ``outputs``.
    """
    want = (*mask.shape, output_size)
    if not isinstance(outputs, Tensor):
        got = type(outputs).__name__
        raise ValueError(f"outputs: expected a tensor of shape {want}, got {got}")
    if tuple(outputs.shape) != want:
        raise ValueError(f"outputs: expected shape {want}, got {tuple(outputs.shape)}")
    if not outputs.dtype.is_floating_point:
        raise ValueError(f"outputs: expected a floating-point tensor, got {outputs.dtype}")
    return outputs


def class_hits(logits: Tensor, targets: Tensor, mask: Tensor) -> Tensor:
    """(B, T) True at the scored steps where the largest logit is the target class."""
    return (logits.argmax(dim=-1) == targets.to(logits.device)) & mask.to(logits.device)


def value_hits(outputs: Tensor, targets: Tensor, mask: Tensor) -> Tensor:
    """(B, T) True at the scored steps where every channel lies within
    ``VALUE_TOLERANCE`` of its target (for 0/1 targets: the output thresholded at 0.5 is
    the target)."""
    close = (outputs - targets.to(outputs)).abs() < VALUE_TOLERANCE
    return close.all(dim=-1) & mask.to(outputs.device)


def sequence_accuracy(hits: Tensor, mask: Tensor) -> float:
    """The fraction of sequences right at every scored step."""
    return float((hits | ~mask.to(hits.device)).all(dim=1).to(torch.float64).mean().item())


def mean_absolute_error(outputs: Tensor, targets: Tensor, mask: Tensor) -> float:
    """The mean over sequences of each sequence's mean absolute error over its scored
    steps and all output channels (Paassen, Schulz, Hammer 2021, Tables 2 and 3).

    Raises:
        ValueError: a sequence without a scored step.
    """
    weights = mask.to(outputs.device, torch.float64)
    steps = weights.sum(dim=1)
    if bool((steps == 0).any()):
        raise ValueError("mask: every sequence needs a scored step for its mean absolute error")
    errors = (outputs.double() - targets.to(outputs.device, torch.float64)).abs().mean(dim=-1)
    return float(((errors * weights).sum(dim=1) / steps).mean().item())
