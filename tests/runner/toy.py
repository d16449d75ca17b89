"""A tiny experiment for testing the runner: noisy linear regression, trained in seconds."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from matplotlib.figure import Figure
from torch import Tensor, nn

from memrnn.experiments.base import Profile, RunContext, RunRecord, RunSpec, TrainedExperiment
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.grid import Grid, grid_runs
from memrnn.experiments.tables import Cell, Printed, Table, group, mean_cell


@dataclass(frozen=True)
class ToyConfig(TrainConfig):
    width: int = 4
    noise: float = 0.1
    fail_at: int = 0  # raise at this step (0: never), to test failure handling
    die_once: str = ""  # a file: the first run to reach step 5 makes it and kills its process


class ToyRun:
    def __init__(self, config: ToyConfig, device: torch.device) -> None:
        self.config = config
        self.device = device
        self.model = nn.Linear(config.width, 1).to(device)
        self.w_true = torch.arange(1.0, config.width + 1, device=device).unsqueeze(1)
        self.steps = 0

    def _data(self, rng: np.random.Generator, n: int) -> tuple[Tensor, Tensor]:
        x = torch.from_numpy(rng.standard_normal((n, self.config.width))).float().to(self.device)
        noise = torch.from_numpy(rng.standard_normal((n, 1))).float().to(self.device)
        return x, x @ self.w_true + self.config.noise * noise

    def training_batch(self, rng: np.random.Generator) -> tuple[Tensor, Tensor]:
        self.steps += 1
        if self.steps == self.config.fail_at:
            raise RuntimeError(f"planned failure at step {self.steps}")
        marker = Path(self.config.die_once) if self.config.die_once else None
        if self.steps == 5 and marker is not None and not marker.exists():
            marker.touch()
            os._exit(9)  # as the kernel's OOM killer or a `kill -9` ends a worker
        return self._data(rng, self.config.batch_size)

    def loss(self, batch: tuple[Tensor, Tensor]) -> Tensor:
        x, y = batch
        return torch.mean((self.model(x) - y) ** 2)

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        x, y = self._data(rng, 256)
        error = (self.model.weight.T - self.w_true).norm()
        return {"loss": float(self.loss((x, y))), "weight_error": float(error)}

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"weights": self.model.weight.flatten().tolist()}


PROFILES = {
    profile: Grid(
        {"seed": (0, 1)}, {"steps": steps, "lr": 0.05, "eval_every": 10, "checkpoint_every": 10}
    )
    for profile, steps in (("smoke", 40), ("quick", 200), ("paper", 2000))
}


class ToyExperiment(TrainedExperiment[ToyConfig]):
    name = "toy"
    title = "Noisy linear regression"
    reproduces = "nothing; a test fixture"
    config_type = ToyConfig
    metrics = ("loss", "weight_error")

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            PROFILES[profile],
            name="seed{seed}",
            labels=lambda c: ("linear", "regression"),
        )

    def build(self, config: ToyConfig, context: RunContext) -> ToyRun:
        return ToyRun(config, context.device)

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        rows = {
            f"seed{seed}": {
                "loss": mean_cell(runs, "loss", paper=Printed(0.01)),
                "weight_error": Cell(runs[0].metrics["weight_error"], seeds=(seed,)),
            }
            for seed, runs in group(records, "seed").items()
        }
        return [Table("fit", "Fit of the linear model", ["loss", "weight_error"], rows)]

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        figure = Figure(figsize=(3, 2))
        axes = figure.add_subplot()
        for r in records:
            axes.plot(r.artifacts["weights"], label=r.spec.name)
        return {"weights": figure}


class DyingToy(ToyExperiment):
    """The toy whose first run to reach step 5 kills its own worker process."""

    def __init__(self, marker: Path | None = None) -> None:
        self.marker = marker

    def runs(self, profile: Profile) -> list[RunSpec]:
        extra = {"die_once": str(self.marker)} if self.marker is not None else {}
        return [dataclasses.replace(s, config={**s.config, **extra}) for s in super().runs(profile)]
