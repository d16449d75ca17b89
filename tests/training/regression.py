"""A small model for the training-loop tests: linear regression on fresh noisy data."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.training import LoopSettings, train_loop


class Regression:
    """Linear regression on fresh noisy data each step; evaluated on a fixed set whose
    loss can be made to rise (``worse_after``) so that the best weights are not the last."""

    def __init__(self, seed: int = 0, worse_after: int = 0) -> None:
        torch.manual_seed(seed)
        self.model = nn.Linear(3, 1)
        self.w = torch.tensor([[1.0], [-2.0], [0.5]])
        self.worse_after = worse_after
        self.evaluations = 0

    def training_batch(self, rng: np.random.Generator) -> tuple[Tensor, Tensor]:
        x = torch.from_numpy(rng.standard_normal((8, 3))).float()
        return x, x @ self.w

    def loss(self, batch: tuple[Tensor, Tensor]) -> Tensor:
        x, y = batch
        return torch.mean((self.model(x) - y) ** 2)

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        self.evaluations += 1
        x = torch.from_numpy(rng.standard_normal((64, 3))).float()
        value = float(self.loss((x, x @ self.w)))
        if self.worse_after and self.evaluations > self.worse_after:
            value += float(self.evaluations)  # a dev loss that rises after a while
        return {"dev": value}


def run(steps: Any, settings: LoopSettings, **kwargs: Any) -> Any:
    """train_loop on ``steps`` with plain SGD (``optimizer="adam"``: Adam), rates 0.05,
    ``schedule="plateau"`` for a ReduceLROnPlateau; the result and the optimiser."""
    if kwargs.pop("optimizer", "sgd") == "adam":
        optimizer: torch.optim.Optimizer = torch.optim.Adam(steps.model.parameters(), lr=0.05)
    else:
        optimizer = torch.optim.SGD(steps.model.parameters(), lr=0.05)
    schedule = kwargs.pop("schedule", None)
    if schedule == "plateau":
        schedule = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=0)
    return train_loop(
        steps,
        optimizer,
        settings,
        data_rng=np.random.default_rng(1),
        eval_rng=lambda step: np.random.default_rng([2, step]),
        schedule=schedule,
        **kwargs,
    ), optimizer
