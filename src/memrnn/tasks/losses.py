"""The training losses of the Task contract, averaged over the scored steps.

- classes: cross entropy of the logits, the mean over the scored tokens;
- values, ``"bce"``: binary cross entropy of the outputs as logits of 0/1 targets (the
  values the outputs stand for are their sigmoids), the mean over scored steps and
  channels;
- values, ``"mse"``: squared error of the outputs as the values themselves, the same
  mean.

The two value losses are those of the deep baselines of Paassen, Schulz, Hammer (2021,
section 4): ``"bce"`` for the 0/1 verdicts of latch and the languages, ``"mse"`` for the
copy tasks' bits.
"""

from __future__ import annotations

from typing import Literal, get_args

import torch
import torch.nn.functional as F
from torch import Tensor

ValueLoss = Literal["bce", "mse"]
VALUE_LOSSES: tuple[ValueLoss, ...] = get_args(ValueLoss)
Loss = Literal["cross_entropy", "bce", "mse"]


def output_loss(kind: ValueLoss, outputs: Tensor, targets: Tensor) -> Tensor:
    """The mean loss ``kind`` of ``outputs`` for ``targets`` of the same shape: binary
    cross entropy on logits (``"bce"``) or the squared error (``"mse"``)."""
    if kind == "bce":
        return F.binary_cross_entropy_with_logits(outputs, targets)
    return F.mse_loss(outputs, targets)


def output_values(kind: ValueLoss, outputs: Tensor) -> Tensor:
    """The values ``outputs`` stand for: the sigmoids of logits (``"bce"``), the outputs
    themselves (``"mse"``)."""
    return torch.sigmoid(outputs) if kind == "bce" else outputs


def scored_loss(kind: Loss, outputs: Tensor, targets: Tensor, mask: Tensor) -> Tensor:
    """The loss ``kind`` of ``outputs`` (B, T, C) at the steps ``mask`` (B, T) marks:
    ``"cross_entropy"`` for targets (B, T) of class ids, else ``output_loss(kind)`` for
    targets (B, T, C) of values; the mean over the scored steps (and channels).

    Raises:
        ValueError: ``mask`` marks no step (there is nothing to average).
    """
    mask = mask.to(outputs.device)
    scored = outputs[mask]  # (N, C), the scored steps in order
    if scored.shape[0] == 0:
        raise ValueError("mask: no step is scored, so the batch has no loss")
    if kind == "cross_entropy":
        return F.cross_entropy(scored, targets.to(outputs.device)[mask])
    return output_loss(kind, scored, targets.to(outputs)[mask])
