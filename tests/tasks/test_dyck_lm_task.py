"""Dyck-(k,m) next-token prediction on the Task contract: the layout by hand, the lengths
of Table 2, and the bracket-closing metric as the model-based one computes it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.languages.dyck import is_dyck
from memrnn.tasks import DyckLMTask, make_task
from memrnn.tasks.base import IGNORE_INDEX
from memrnn.tasks.dyck_lm import bracket_closing, pad
from tests.tasks.oracle import Oracle


def test_sizes_and_table_2() -> None:
    task = make_task("dyck_lm", k=3, m=5)
    assert isinstance(task, DyckLMTask)
    assert (task.input_size, task.output_size, task.start) == (8, 7, 7)
    assert (task.train_lengths, task.test_lengths) == ((1, 180), (181, 360))


def test_layout_by_hand() -> None:
    task = DyckLMTask(k=2, m=2, train_lengths=(1, 7), test_lengths=(9, 11))
    batch = task.sample_batch(np.random.default_rng(3), 16, 1, 7)
    for inputs, targets, mask in zip(batch.inputs, batch.targets, batch.mask, strict=True):
        string = targets[mask].tolist()
        assert is_dyck(string, 2, 2) and len(string) <= 7
        n = len(string)
        assert inputs.tolist() == [5, *string[:-1]] + [4] * (len(inputs) - n)  # start, end pads
        assert targets[n:].tolist() == [IGNORE_INDEX] * (len(targets) - n)
        assert mask.tolist() == [True] * n + [False] * (len(mask) - n)


def test_bracket_closing_is_the_model_based_metric() -> None:
    task = DyckLMTask(k=2, m=3)
    batch = task.sample_batch(np.random.default_rng(0), 20, 20, 84)
    strings = [row[mask].numpy() for row, mask in zip(batch.targets, batch.mask, strict=True)]
    oracle = Oracle(2, 3)
    with torch.no_grad():
        outputs = oracle(pad(strings))
    assert outputs.shape == (*batch.mask.shape, task.output_size)
    scores = task.score(outputs, batch)
    assert scores["bracket_closing"] == bracket_closing(oracle, strings, 2).mean == 1.0
    # a model that prefers the wrong close bracket everywhere is never confident
    swapped = outputs.clone()
    swapped[..., 2], swapped[..., 3] = outputs[..., 3], outputs[..., 2]
    assert task.score(swapped, batch)["bracket_closing"] == 0.0
    # outputs straight from training, with their graph, are scored as they are
    assert task.score(outputs.requires_grad_(), batch)["bracket_closing"] == 1.0


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="k: expected an int >= 1, got 0"):
        DyckLMTask(k=0)
    with pytest.raises(
        ValueError, match=r"m: Table 2 of Hewitt et al. \(2020\) gives length ranges"
    ):
        DyckLMTask(m=4)
    DyckLMTask(m=4, train_lengths=(1, 9), test_lengths=(11, 21))
    with pytest.raises(ValueError, match=r"train_lengths: expected \(min, max\) ints"):
        DyckLMTask(train_lengths=(9, 1))
    with pytest.raises(ValueError, match="min_length, max_length: no Dyck-"):
        DyckLMTask().sample_batch(np.random.default_rng(0), 2, 2, 2)
