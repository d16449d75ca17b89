"""Task.loss: cross entropy over the scored tokens for classes; binary cross entropy on
logits or squared error for values, as each benchmark of Paassen, Schulz, Hammer (2021)
trains its deep baselines; the mean over the scored steps, padding left out."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from memrnn.tasks import IGNORE_INDEX, Task, TaskBatch, make_task, task_names
from memrnn.tasks.losses import output_loss, output_values
from memrnn.tasks.rsm_benchmarks import make_dataset


def _outputs(batch: TaskBatch, size: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(1)
    return torch.randn(*batch.mask.shape, size, generator=generator, requires_grad=True)


@pytest.mark.parametrize("name", [n for n in task_names() if make_task(n).output_kind == "classes"])
def test_classes_take_the_cross_entropy_of_the_scored_tokens(name: str) -> None:
    task = make_task(name)
    batch = task.sample_batch(np.random.default_rng(0), 3, *task.train_lengths)
    outputs = _outputs(batch, task.output_size)
    targets = batch.targets.masked_fill(~batch.mask, IGNORE_INDEX)
    want = F.cross_entropy(outputs.flatten(0, 1), targets.flatten(), ignore_index=IGNORE_INDEX)
    assert task.loss_kind == "cross_entropy"
    torch.testing.assert_close(task.loss(outputs, batch), want)


def test_a_hand_computed_cross_entropy() -> None:
    task = make_task("associative_retrieval")
    batch = task.sample_batch(np.random.default_rng(0), 2, 2, 2)
    assert batch.mask.sum(dim=1).tolist() == [1, 1]  # the answer after the query alone
    outputs = torch.zeros(*batch.mask.shape, task.output_size)
    outputs[0][batch.mask[0]] += 10 * F.one_hot(batch.targets[0][batch.mask[0]], task.output_size)
    loss = task.loss(outputs, batch)
    # one step all but certain (its loss about 0), one uniform (log C): the mean of the two
    right = math.log(1 + (task.output_size - 1) * math.exp(-10))
    assert float(loss) == pytest.approx((right + math.log(task.output_size)) / 2)


@pytest.mark.parametrize("name", [n for n in task_names() if n.startswith("rsm_")])
def test_each_benchmark_trains_on_the_loss_of_the_papers_deep_baselines(name: str) -> None:
    task = make_task(name)
    data = make_dataset(name.removeprefix("rsm_"), np.random.default_rng(0), 2, test=False)
    # what experiments.paassen2021 gives its GRU and DSM: "bce" if binary else "mse"
    assert task.value_loss == task.loss_kind == ("bce" if data.binary else "mse")


@pytest.mark.parametrize("name", ["rsm_latch", "rsm_copy"])
def test_one_whole_sequence_gives_the_estimators_loss_to_the_bit(name: str) -> None:
    task = make_task(name)
    batch = task.sample_batch(np.random.default_rng(3), 1, 5, 5)
    assert bool(batch.mask.all())
    outputs = _outputs(batch, task.output_size)
    want = output_loss(task.value_loss, outputs[0], batch.targets[0])  # one word (T, L)
    assert torch.equal(task.loss(outputs, batch), want)


@pytest.mark.parametrize("name", ["rsm_dyck2", "rsm_repeat_copy"])
def test_values_average_over_scored_steps_and_channels(name: str) -> None:
    task = make_task(name)
    batch = task.sample_batch(np.random.default_rng(4), 4, 3, 9)
    assert not bool(batch.mask.all())  # padding, which must not count
    outputs = _outputs(batch, task.output_size)
    o, t = outputs[batch.mask], batch.targets[batch.mask]
    if task.value_loss == "bce":
        p = torch.sigmoid(o)
        want = -(t * p.log() + (1 - t) * (1 - p).log()).mean()
    else:
        want = (o - t).square().mean()
    loss = task.loss(outputs, batch)
    torch.testing.assert_close(loss, want)
    loss.backward()
    assert outputs.grad is not None
    assert outputs.grad[~batch.mask].abs().sum() == 0
    assert outputs.grad[batch.mask].abs().sum() > 0


def test_bce_outputs_are_logits_of_the_values() -> None:
    logits = torch.tensor([-2.0, 0.0, 3.0])
    torch.testing.assert_close(output_values("bce", logits), torch.sigmoid(logits))
    assert output_values("mse", logits) is logits


def test_bad_outputs_and_batches_without_a_scored_step() -> None:
    task: Task = make_task("rsm_copy")
    batch = task.sample_batch(np.random.default_rng(0), 2, 1, 3)
    with pytest.raises(ValueError, match="outputs: expected shape"):
        task.loss(torch.zeros(*batch.mask.shape, task.output_size + 1), batch)
    empty = TaskBatch(batch.inputs, batch.targets, torch.zeros_like(batch.mask))
    with pytest.raises(ValueError, match="mask: no step is scored"):
        task.loss(torch.zeros(*batch.mask.shape, task.output_size), empty)
