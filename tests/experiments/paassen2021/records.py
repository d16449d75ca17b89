"""Stored runs of paassen2021 made up for the tests of its tables and findings."""

from __future__ import annotations

from memrnn.experiments.base import RunRecord, RunSpec
from memrnn.experiments.paassen2021.config import BINARY_TASKS, LARGE_ESN


def record(
    seed: int,
    maes: list[float],
    model: str = "GRU",
    task: str = "latch",
    neurons: int = 256,
    profile: str = "quick",
    params: dict[str, float] | None = None,
) -> RunRecord:
    """A run of ``model`` on ``task`` whose repeats gave the test MAEs ``maes`` (their
    thresholded ones rounded, each repeat taking a second)."""
    config = {"seed": seed, "model": model, "neurons": neurons}
    large = neurons == LARGE_ESN
    tags = {"large": large, "model": model, "task": task, "seed": seed}
    name = f"{model}/{neurons}/{task}/{seed}"
    spec = RunSpec("paassen2021", name, profile, config, model, task, tags=tags)
    artifacts = {
        "mae": maes,
        "mae_thresholded": [round(m) for m in maes] if task in BINARY_TASKS else [],
        "seconds": [1.0] * len(maes),
        "params": params or {},
    }
    return RunRecord(spec, {}, artifacts, "v", 1)
