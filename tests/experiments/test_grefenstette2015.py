"""The grefenstette2015 experiment: its runs, the curriculum, a smoke reproduce with the
Figure 2a table and the trace figure, and config checks."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from memrnn.experiments.base import RunRecord, RunSpec
from memrnn.experiments.grefenstette2015 import (
    MODELS,
    PAPER_FIGURE2A,
    Grefenstette2015,
    Grefenstette2015Config,
    TransductionRun,
    select,
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
    # two tasks x four models, and the DeQue's second start on each task
    assert not summary.failed and summary.planned == 10
    results = json.loads((tmp_path / "results.json").read_text())
    table = [r for r in results if r["table"] == "figure2a"]
    assert len(table) == 8 * 4 and all(0.0 <= r["value"] <= 1.0 for r in table)
    report = (tmp_path / "report.md").read_text()
    assert "stack-reversal-trace" in report and "training-curves" in report


def _record(name: str, train: tuple[float, float, float], test: float) -> RunRecord:
    task, variant, _ = name.split("/")
    config = {"task": task, "model": variant.split("-")[0], "seed": 0}
    metrics = {"train_coarse": train[0], "train_fine": train[1], "train_loss": train[2],
               "test_coarse": test, "test_fine": test, "curriculum": 32.0}  # fmt: skip
    return RunRecord(RunSpec("grefenstette2015", name, "quick", config), metrics, {}, "v", 1.0)


def test_select_keeps_the_start_that_trains_best_whatever_the_test_says() -> None:
    records = [
        _record("copy/deque-even/seed0", (0.3, 0.6, 0.1), test=0.9),
        _record("copy/deque-top-open/seed0", (1.0, 1.0, 0.2), test=0.1),
        _record("reversal/deque-even/seed0", (1.0, 1.0, 0.01), test=0.2),
        _record("reversal/deque-top-open/seed0", (1.0, 1.0, 0.02), test=1.0),  # loss decides
        _record("reversal/stack/seed0", (0.5, 0.5, 0.5), test=0.5),
        _record("copy/queue-b/seed0", (1.0, 1.0, 0.0), test=0.0),  # a full tie: first name
        _record("copy/queue-a/seed0", (1.0, 1.0, 0.0), test=1.0),
    ]
    chosen = [r.spec.name for r in select(records)]
    assert chosen == ["copy/queue-a/seed0", "copy/deque-top-open/seed0", "reversal/stack/seed0",
                      "reversal/deque-even/seed0"]  # fmt: skip
    lines = Grefenstette2015().findings(records)
    assert any(line.startswith("DeQue-LSTM on copy: test coarse accuracy 0.10 misses")
               for line in lines)  # fmt: skip
    assert any(
        line.startswith("copy, DeQue-LSTM (even start): test coarse 0.90")
        and "not reported" in line
        for line in lines
    )
