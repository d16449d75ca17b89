"""The transduction metrics: coarse and fine accuracy by hand, edge cases, inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.tasks.transduction import TransductionTask, sample_batch
from memrnn.tasks.transduction_metrics import coarse, cut_at_eos, fine


def test_metrics_by_hand() -> None:
    gold = [[1, 2, 9], [3, 9], [1, 2, 3, 9], [1, 2, 9]]  # 9 is </s>
    predicted = [
        [1, 2, 9],  # right: 3/3
        [3, 1, 9],  # wrong at 1: 1/2
        [1, 2, 9],  # too short, wrong at 2: 2/4
        [1, 2, 3, 9],  # too long, wrong at 2: 2/3
    ]
    assert coarse(predicted, gold) == 0.25
    assert fine(predicted, gold) == pytest.approx((1 + 1 / 2 + 2 / 4 + 2 / 3) / 4)


def test_metrics_edge_cases() -> None:
    gold = [[1, 2, 3, 9]]
    assert fine([[1, 2]], gold) == 0.5  # cut off before </s>: wrong from position 2
    assert fine([[]], gold) == 0.0
    assert fine([[4, 2, 3, 9]], gold) == 0.0  # nothing counts after the first error
    assert coarse([[1, 2, 3]], gold) == 0.0  # </s> missing
    # Past gold's </s> nothing is looked at (decoding stops there).
    assert coarse([[1, 2, 3, 9, 5]], gold) == 1.0
    assert fine([[1, 2, 3, 9, 5]], gold) == 1.0


def test_metrics_take_arrays_and_tensors() -> None:
    gold = np.array([[1, 9], [2, 9]])
    predicted = torch.tensor([[1, 9], [2, 1]])
    assert coarse(predicted, gold) == 0.5
    assert fine(predicted, gold) == 0.75
    assert coarse([torch.tensor([1, 9])], [np.array([1, 9])]) == 1.0


def test_metrics_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="predicted has 1 sequences but gold has 2"):
        coarse([[1]], [[1], [1]])
    with pytest.raises(ValueError, match="gold: no sequences"):
        fine([], [])
    with pytest.raises(ValueError, match="gold: every sequence needs at least its </s>"):
        fine([[1]], [[]])
    with pytest.raises(ValueError, match="predicted: expected a 2-D array"):
        coarse(np.array([1, 2]), [[1], [2]])
    with pytest.raises(ValueError, match="predicted: expected a sequence of id sequences"):
        coarse([1, 2], [[1], [2]])  # type: ignore[list-item]


def test_cut_at_eos() -> None:
    predicted = torch.tensor([[1, 4, 2, 4], [1, 2, 3, 3], [4, 4, 4, 4]])
    assert cut_at_eos(predicted, 4) == [[1, 4], [1, 2, 3, 3], [4]]
    assert cut_at_eos([[4, 1], []], 4) == [[4], []]


def test_metrics_on_a_perfect_and_a_shifted_decoding() -> None:
    # Gold from a batch, predictions as a decoder of fixed length would return them.
    task = TransductionTask("reversal", vocab_size=6)
    batch = sample_batch(task, np.random.default_rng(2), 8, 3, 7)
    gold = batch.gold()
    padded = [g + [0] * (9 - len(g)) for g in gold]
    assert coarse(cut_at_eos(padded, task.eos), gold) == 1.0
    assert fine(cut_at_eos(padded, task.eos), gold) == 1.0
    early = [[task.eos] * 9 for _ in gold]  # stops at once: nothing right
    assert coarse(cut_at_eos(early, task.eos), gold) == 0.0
    assert fine(cut_at_eos(early, task.eos), gold) == 0.0
