"""The grefenstette2015 experiment: its runs, the curriculum, a smoke reproduce with the
Figure 2a table and the trace figure, and config checks."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from memrnn.experiments.grefenstette2015 import (
    MODELS,
    PAPER_FIGURE2A,
    Grefenstette2015,
    Grefenstette2015Config,
    TransductionRun,
)
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend
from memrnn.tasks.transduction import TASKS

TINY = Grefenstette2015Config(
    steps=2, eval_size=5, hidden=8, embedding=4, memory_width=4, max_length=8,
    test_min_length=9, test_max_length=10,
)  # fmt: skip


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_runs_are_distinct_and_valid(profile: str) -> None:
    runs = Grefenstette2015().runs(profile)  # type: ignore[arg-type]
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs:
        Grefenstette2015Config(**spec.config).validate()
    if profile != "smoke":
        assert {(s.config["task"], s.config["model"]) for s in runs} == set(PAPER_FIGURE2A)
        assert {(t, m) for t in TASKS for m in MODELS} == set(PAPER_FIGURE2A)


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="task: expected one of"):
        Grefenstette2015Config(task="sort").validate()
    with pytest.raises(ValueError, match="model: expected one of"):
        Grefenstette2015Config(model="tape").validate()
    with pytest.raises(ValueError, match="need min <= max < test_min <= test_max"):
        Grefenstette2015Config(max_length=40, test_min_length=33).validate()
    with pytest.raises(ValueError, match="curriculum_start: must not be negative"):
        Grefenstette2015Config(curriculum_start=-1).validate()
    with pytest.raises(ValueError, match="gate_noise: expected a standard deviation"):
        Grefenstette2015Config(gate_noise=-0.5).validate()


def test_the_curriculum_grows_when_the_current_lengths_are_learned() -> None:
    torch.manual_seed(0)
    always = dataclasses.replace(TINY, curriculum_start=2, curriculum_increment=3,
                                 curriculum_threshold=0.0)  # fmt: skip
    run = TransductionRun(always, torch.device("cpu"))
    rng = np.random.default_rng(0)
    bounds = [int(run.model.bound)]
    for _ in range(3):
        run.evaluate(rng)
        bounds.append(int(run.model.bound))
    assert bounds == [2, 5, 8, 8]  # capped at max_length
    assert "bound" in run.model.state_dict()  # so a checkpoint keeps it
    never = dataclasses.replace(always, curriculum_threshold=1.1)
    run = TransductionRun(never, torch.device("cpu"))
    run.evaluate(rng)
    assert int(run.model.bound) == 2
    off = TransductionRun(dataclasses.replace(TINY, curriculum_start=0), torch.device("cpu"))
    assert int(off.model.bound) == TINY.max_length


def test_training_batches_respect_the_bound() -> None:
    run = TransductionRun(dataclasses.replace(TINY, curriculum_start=3), torch.device("cpu"))
    rng = np.random.default_rng(1)
    for _ in range(20):
        assert int(run.training_batch(rng).source_lengths.max()) <= 3


@pytest.mark.parametrize("task", TASKS)
def test_every_task_trains_and_traces_at_the_quick_lengths(task: str) -> None:
    # The quick lengths on every task: the curriculum starts no shorter than the task's
    # shortest source (the ITG grammars have none below 5 words), and the trace is drawn
    # at a test length the task has (bigram flipping: even lengths only; 33 is odd).
    quick = dataclasses.replace(TINY, task=task, model="stack", max_length=32,
                                test_min_length=33, test_max_length=64)  # fmt: skip
    run = TransductionRun(quick, torch.device("cpu"))
    assert int(run.model.bound) >= run.task.shortest_source
    assert torch.isfinite(run.loss(run.training_batch(np.random.default_rng(2))))
    trace = run.artifacts(np.random.default_rng(3))
    assert 33 <= trace["source_length"] <= 34


def test_smoke_reproduce(tmp_path: Path) -> None:
    summary = reproduce([Grefenstette2015()], "smoke", tmp_path, LocalBackend(workers=1))
    assert not summary.failed and summary.planned == 8
    results = json.loads((tmp_path / "results.json").read_text())
    table = [r for r in results if r["table"] == "figure2a"]
    assert len(table) == 8 * 4 and all(0.0 <= r["value"] <= 1.0 for r in table)
    report = (tmp_path / "report.md").read_text()
    assert "stack-reversal-trace" in report and "training-curves" in report
