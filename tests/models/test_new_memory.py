"""A memory of one's own, in one file: the "bag", an unordered differentiable multiset
(each push adds a value with its strength; the read is the strength-weighted mean of
what was pushed), driving an Elman controller written with ordinary torch operations.
Nothing else is written for it: registered, it is built by name, trains alone through
``train_loop``, and trains grouped (``Grouped`` runs its own forward under
``torch.func.vmap``) through ``train_group``, each member as it trains alone."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch
from torch import Tensor, nn

from memrnn.models import build_model_for
from memrnn.models.grouped import Grouped
from memrnn.models.registry import _REGISTRY, register_model
from memrnn.tasks import Task, TaskBatch, make_task
from memrnn.training import LoopSettings, train_group, train_loop


class BagRNN(nn.Module):
    """An Elman network reading, at every step, the mean of the values it has pushed."""

    accepts = ("tokens",)

    def __init__(self, input_size: int, output_size: int, hidden_size: int = 8, width: int = 4):
        super().__init__()
        self.embed = nn.Embedding(input_size, hidden_size)
        self.w_in = nn.Linear(hidden_size + width, hidden_size)
        self.w_rec = nn.Linear(hidden_size, hidden_size, bias=False)
        self.push = nn.Linear(hidden_size, 1)
        self.value = nn.Linear(hidden_size, width)
        self.out = nn.Linear(hidden_size + width, output_size)

    def forward(self, ids: Tensor) -> Tensor:
        x = self.embed(ids)
        batch, steps, hidden = x.shape
        h = x.new_zeros(batch, hidden)
        total = x.new_zeros(batch, self.value.out_features)
        mass, read = x.new_zeros(batch, 1), torch.zeros_like(total)
        outputs = []
        for t in range(steps):
            h = torch.tanh(self.w_in(torch.cat([x[:, t], read], -1)) + self.w_rec(h))
            strength = torch.sigmoid(self.push(h))
            total = total + strength * torch.tanh(self.value(h))
            mass = mass + strength
            read = total / (mass + 1e-6)
            outputs.append(self.out(torch.cat([h, read], -1)))
        return torch.stack(outputs, dim=1)


@pytest.fixture
def bag() -> Iterator[str]:
    register_model("bag_rnn", BagRNN, defaults={"hidden_size": 8})
    yield "bag_rnn"
    del _REGISTRY["bag_rnn"]  # other tests see the registry as memrnn makes it


class Run:
    """A run of the bag model on a task, as the training loop drives it."""

    def __init__(self, name: str, task: Task, seed: int) -> None:
        torch.manual_seed(seed)
        self.task, self.model = task, build_model_for(name, task).double()

    def training_batch(self, rng: np.random.Generator) -> TaskBatch:
        batch = self.task.sample_batch(rng, 8, 2, 6)
        return TaskBatch(batch.inputs, batch.targets, batch.mask)

    def inputs(self, batch: TaskBatch) -> Tensor:
        return batch.inputs

    def loss_of(self, outputs: Tensor, batch: TaskBatch) -> Tensor:
        return self.task.loss(outputs, batch)

    def loss(self, batch: TaskBatch) -> Tensor:
        return self.loss_of(self.model(batch.inputs), batch)

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        batch = self.task.sample_batch(rng, 16, 2, 8)
        with torch.no_grad():
            return {"loss": float(self.loss(batch))}


SEEDS, LRS = (0, 1, 2), (0.01, 0.03, 0.02)
SETTINGS = LoopSettings(steps=12, clip=1.0, eval_every=4)


def _eval_rng(k: int) -> object:
    return lambda step: np.random.default_rng([50 + k, step])


def test_a_memory_of_ones_own_trains_alone_and_grouped(bag: str) -> None:
    task = make_task("parity_check")
    alone = []
    for k, (seed, lr) in enumerate(zip(SEEDS, LRS, strict=True)):
        run = Run(bag, task, seed)
        optimizer = torch.optim.Adam(run.model.parameters(), lr=lr, foreach=True)
        result = train_loop(
            run, optimizer, SETTINGS, data_rng=np.random.default_rng(seed), eval_rng=_eval_rng(k)
        )
        alone.append((run.model, result))

    members = [Run(bag, task, seed) for seed in SEEDS]
    group = Grouped([m.model for m in members])
    assert group.vmapped  # by vmap over its own forward: nothing written
    grouped = train_group(
        members,
        group,
        SETTINGS,
        optimizers=[
            torch.optim.Adam(m.model.parameters(), lr=lr, foreach=True)
            for m, lr in zip(members, LRS, strict=True)
        ],
        data_rngs=[np.random.default_rng(seed) for seed in SEEDS],
        eval_rngs=[_eval_rng(k) for k in range(len(SEEDS))],
    )
    for member, result, (model, own) in zip(members, grouped, alone, strict=True):
        assert result.metrics.keys() == own.metrics.keys()
        for name, value in own.metrics.items():
            assert result.metrics[name] == pytest.approx(value, rel=1e-9, abs=1e-9), name
        for p, q in zip(member.model.parameters(), model.parameters(), strict=True):
            torch.testing.assert_close(p, q, rtol=1e-9, atol=1e-9)
