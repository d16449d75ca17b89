"""The scores every task shares, by hand."""

from __future__ import annotations

import pytest
import torch

from memrnn.tasks.scoring import (
    check_outputs,
    class_hits,
    mean_absolute_error,
    sequence_accuracy,
    value_hits,
)


def test_class_hits_and_sequence_accuracy() -> None:
    logits = torch.tensor([[[0.0, 1.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]])
    targets = torch.tensor([[1, 0], [1, 0]])
    mask = torch.tensor([[True, True], [True, False]])
    hits = class_hits(logits, targets, mask)
    assert hits.tolist() == [[True, True], [True, False]]
    assert sequence_accuracy(hits, mask) == 1.0  # row 1's wrong step is not scored
    assert sequence_accuracy(hits, torch.ones(2, 2, dtype=torch.bool)) == 0.5


def test_value_hits_round_to_the_target() -> None:
    outputs = torch.tensor([[[0.4, 0.9], [0.6, 1.2]]])
    targets = torch.tensor([[[0.0, 1.0], [0.0, 1.0]]])
    mask = torch.ones(1, 2, dtype=torch.bool)
    assert value_hits(outputs, targets, mask).tolist() == [[True, False]]


def test_mean_absolute_error_is_a_mean_of_sequence_means() -> None:
    outputs = torch.tensor([[[1.0], [0.0], [5.0]], [[0.5], [9.0], [9.0]]])
    targets = torch.zeros(2, 3, 1)
    mask = torch.tensor([[True, True, False], [True, False, False]])
    # (1 + 0) / 2 and 0.5 / 1: the padding is never looked at
    assert mean_absolute_error(outputs, targets, mask) == pytest.approx((0.5 + 0.5) / 2)
    with pytest.raises(ValueError, match="mask: every sequence needs a scored step"):
        mean_absolute_error(outputs, targets, torch.tensor([[True] * 3, [False] * 3]))


def test_check_outputs() -> None:
    mask = torch.ones(2, 3, dtype=torch.bool)
    outputs = torch.zeros(2, 3, 4)
    assert check_outputs(outputs, mask, 4) is outputs
    with pytest.raises(ValueError, match=r"outputs: expected shape \(2, 3, 5\), got \(2, 3, 4\)"):
        check_outputs(outputs, mask, 5)
    with pytest.raises(ValueError, match="outputs: expected a floating-point tensor"):
        check_outputs(outputs.long(), mask, 4)
    with pytest.raises(ValueError, match="outputs: expected a tensor of shape"):
        check_outputs([0.0], mask, 4)
