"""The grefenstette2015 experiment: its runs (the paper profile's grid), the curriculum, a
smoke reproduce with the Figure 2a table and the trace figure, the choice of each cell's
run (training only: accuracy in the quick profile, perplexity in the paper's), the smoke
report, and config checks."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import get_args

import numpy as np
import pytest
import torch

from memrnn.cli import main
from memrnn.experiments.base import PROFILE_NAMES, Profile, RunRecord
from memrnn.experiments.grefenstette2015 import (
    MODEL_NAMES,
    MODELS,
    PAPER,
    PAPER_DEPTHS,
    PAPER_HIDDEN,
    PAPER_LRS,
    Grefenstette2015,
    Grefenstette2015Config,
    Task,
    TransductionRun,
    select,
    training_perplexity,
)
from memrnn.experiments.tables import Printed
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend
from memrnn.tasks.transduction import TASKS

TINY = Grefenstette2015Config(
    steps=2, eval_size=5, hidden=8, embedding=4, memory_width=4, max_length=8,
    test_min_length=9, test_max_length=10,
)  # fmt: skip


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_runs_are_distinct_and_valid(profile: Profile) -> None:
    runs = Grefenstette2015().runs(profile)
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs:
        Grefenstette2015Config(**spec.config).validate()
        assert (spec.tags["task"], spec.tags["model"]) == (
            spec.config["task"],
            spec.config["model"],
        )
    rows = {f"{s.config['task']} {MODEL_NAMES[s.config['model']]}" for s in runs}
    if profile != "smoke":
        assert rows == set(PAPER["figure2a"])
        assert {f"{t} {MODEL_NAMES[m]}" for t in TASKS for m in MODELS} == set(PAPER["figure2a"])


def test_the_literal_tasks_are_the_transduction_tasks() -> None:
    assert get_args(Task) == TASKS


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="task: expected copy, reversal, bigram_flip"):
        Grefenstette2015Config(task="sort").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="model: expected lstm, stack, queue or deque"):
        Grefenstette2015Config(model="tape").validate()  # type: ignore[arg-type]
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


def test_the_paper_profile_is_the_papers_grid() -> None:
    runs = Grefenstette2015().runs("paper")
    # 5 tasks x (4 Deep LSTM depths + 3 memory models) x 2 hidden sizes x 5 learning rates
    assert len(runs) == 5 * (4 + 3) * 2 * 5 == 350
    coordinates = [
        (s.config["task"], s.config["model"], s.config["layers"], s.config["hidden"],
         s.config["lr"]) for s in runs
    ]  # fmt: skip
    expected = [
        (t, m, d, h, lr)
        for t in TASKS
        for m in MODELS
        for d in (PAPER_DEPTHS if m == "lstm" else (1,))
        for h in PAPER_HIDDEN
        for lr in PAPER_LRS
    ]
    assert sorted(coordinates) == sorted(expected) and len(set(coordinates)) == 350
    assert PAPER_DEPTHS == (1, 2, 4, 8) and PAPER_HIDDEN == (256, 512)
    assert PAPER_LRS == (5e-3, 1e-3, 5e-4, 1e-4, 5e-5)
    for spec in runs:
        c = spec.config
        assert (c["optimizer"], c["batch_size"], c["clip"]) == ("rmsprop", 10, 1.0)
        assert (c["embedding"], c["memory_width"], c["seed"]) == (64, 256, 0)
        assert (spec.task, spec.model) == (c["task"], MODEL_NAMES[c["model"]])


def test_memrnn_list_names_every_paper_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "grefenstette2015", "--profile", "paper"]) == 0
    out = capsys.readouterr().out
    assert "paper 350 runs" in out
    assert all(spec.name in out for spec in Grefenstette2015().runs("paper"))


def test_smoke_reproduce(tmp_path: Path) -> None:
    summary = reproduce([Grefenstette2015()], "smoke", tmp_path, LocalBackend(workers=1))
    # two tasks x four models, and the DeQue's second start on each task
    assert not summary.failed and summary.planned == 10
    results = json.loads((tmp_path / "results.json").read_text())
    table = [r for r in results if r["table"] == "figure2a"]
    assert len(table) == 8 * 4 and all(0.0 <= r["value"] <= 1.0 for r in table)
    report = (tmp_path / "report.md").read_text()
    assert "stack-reversal-trace" in report and "training-curves" in report
    # A smoke report says what it is and claims nothing against the paper or a target.
    assert "Scale: a smoke run" in report and "4 steps" in report and "8000 steps" not in report
    assert "target of" not in report and "meets" not in report and "misses" not in report
    assert all(r["paper_value"] is None for r in table)


def test_the_smoke_scale_and_findings_make_no_claim() -> None:
    experiment = Grefenstette2015()
    scale = experiment.scale("smoke")
    assert scale != experiment.scale("quick") and scale.startswith("a smoke run")
    assert "hidden 8" in scale and "4 steps" in scale and "test lengths 5-6" in scale
    # the same runs' numbers under the quick profile are judged against its targets
    names = (
        "reversal/stack/seed0", "copy/queue/seed0", "copy/deque-even/seed0",
        "copy/deque-top-open/seed0", "reversal/deque-even/seed0", "copy/lstm/seed0",
    )  # fmt: skip
    for profile, judged in (("smoke", False), ("quick", True)):
        records = [_record(profile, name, (1.0, 1.0, 0.1), test=0.5) for name in names]
        lines = experiment.findings(records)
        assert any("misses the target of 0.95" in line for line in lines) is judged
        assert any("Deep LSTM test coarse accuracy" in line for line in lines) is judged
        cells = [c for row in experiment.tables(records)[0].rows.values() for c in row.values()]
        assert all((c.paper is not None) is judged for c in cells)


_QUICK_RUNS = {
    s.name: s for s in Grefenstette2015().runs("smoke") + Grefenstette2015().runs("quick")
}
_PAPER_RUNS = {
    tuple(s.config[k] for k in ("task", "model", "layers", "hidden", "lr")): s
    for s in Grefenstette2015().runs("paper")
}


class _TrainingOnly(Mapping[str, float]):
    """A run's metrics whose test scores must not be read, by any route."""

    def __init__(self, metrics: dict[str, float]) -> None:
        self._metrics = metrics

    def __getitem__(self, key: str) -> float:
        if key.startswith("test_"):
            raise AssertionError(f"the choice of a run read {key}")
        return self._metrics[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)


def _metrics(train: tuple[float, float, float | None], test: float) -> dict[str, float]:
    metrics = {"train_coarse": train[0], "train_fine": train[1], "test_coarse": test,
               "test_fine": test, "curriculum": 32.0}  # fmt: skip
    if train[2] is not None:
        metrics["train_loss"] = train[2]
    return metrics


def _record(
    profile: str, name: str, train: tuple[float, float, float], test: float, guarded: bool = False
) -> RunRecord:
    """A quick or smoke run of that name (or a copy of its Queue-LSTM run renamed)."""
    spec = _QUICK_RUNS.get(name) or dataclasses.replace(_QUICK_RUNS["copy/queue/seed0"], name=name)
    spec = dataclasses.replace(spec, profile=profile)
    metrics = _metrics(train, test)
    return RunRecord(spec, _TrainingOnly(metrics) if guarded else metrics, {}, "v", 1.0)


def _paper_record(
    coordinates: tuple[str, str, int, int, float], loss: float | None, test: float,
    guarded: bool = True,
) -> RunRecord:  # fmt: skip
    metrics = _metrics((0.5, 0.5, loss), test)
    return RunRecord(
        _PAPER_RUNS[coordinates], _TrainingOnly(metrics) if guarded else metrics, {}, "v", 1.0
    )


def test_select_keeps_the_start_that_trains_best_whatever_the_test_says() -> None:
    records = [
        _record("quick", "copy/deque-even/seed0", (0.3, 0.6, 0.1), test=0.9),
        _record("quick", "copy/deque-top-open/seed0", (1.0, 1.0, 0.2), test=0.1),
        _record("quick", "reversal/deque-even/seed0", (1.0, 1.0, 0.01), test=0.2),
        _record("quick", "reversal/deque-top-open/seed0", (1.0, 1.0, 0.02), test=1.0),  # loss
        _record("quick", "reversal/stack/seed0", (0.5, 0.5, 0.5), test=0.5),
        _record("quick", "copy/queue-b/seed0", (1.0, 1.0, 0.0), test=0.0),  # a full tie: name
        _record("quick", "copy/queue-a/seed0", (1.0, 1.0, 0.0), test=1.0),
    ]
    chosen = [r.spec.name for r in select(records)]
    assert chosen == ["copy/queue-a/seed0", "copy/deque-top-open/seed0", "reversal/stack/seed0",
                      "reversal/deque-even/seed0"]  # fmt: skip
    guarded = [_record("quick", r.spec.name, (r.metrics["train_coarse"], r.metrics["train_fine"],
                                              r.metrics["train_loss"]), 0.0, guarded=True)
               for r in records]  # fmt: skip
    assert [r.spec.name for r in select(guarded)] == chosen  # the test scores were never read
    lines = Grefenstette2015().findings(records)
    assert any(line.startswith("DeQue-LSTM on copy: test coarse accuracy 0.10 misses")
               for line in lines)  # fmt: skip
    # the start is read from the run's config, not its name
    assert any(
        line.startswith("copy, DeQue-LSTM (even start): test coarse 0.90")
        and "not reported" in line
        for line in lines
    )
    assert any(line.startswith("reversal, DeQue-LSTM (top-open start)") for line in lines)


def test_the_paper_profile_picks_the_lowest_training_perplexity_never_the_test() -> None:
    records = [
        _paper_record(("copy", "lstm", 1, 256, 1e-3), loss=0.5, test=1.0),
        _paper_record(("copy", "lstm", 8, 512, 5e-4), loss=0.1, test=0.0),
        _paper_record(("copy", "lstm", 2, 256, 5e-3), loss=0.3, test=0.9),
        _paper_record(("copy", "stack", 1, 512, 1e-4), loss=None, test=1.0),  # no training loss
        _paper_record(("copy", "stack", 1, 256, 1e-3), loss=2.0, test=0.0),
        _paper_record(("reversal", "queue", 1, 256, 5e-5), loss=0.7, test=0.0),
    ]
    chosen = [(r.spec.task, r.spec.config["layers"], r.spec.config["hidden"], r.spec.config["lr"])
              for r in select(records)]  # fmt: skip
    assert chosen == [("copy", 8, 512, 5e-4), ("copy", 1, 256, 1e-3), ("reversal", 1, 256, 5e-5)]
    assert training_perplexity(records[1]) == pytest.approx(math.exp(0.1))
    assert training_perplexity(records[3]) == math.inf


def test_the_paper_profile_breaks_ties_the_same_way_in_any_order() -> None:
    # equal perplexity: the fewer layers, then the smaller hidden size, then the first name
    tied = [
        _paper_record(("copy", "lstm", 4, 256, 1e-3), loss=0.2, test=1.0),
        _paper_record(("copy", "lstm", 2, 512, 1e-3), loss=0.2, test=1.0),
        _paper_record(("copy", "lstm", 2, 256, 5e-4), loss=0.2, test=0.0),
        _paper_record(("copy", "lstm", 2, 256, 1e-4), loss=0.2, test=1.0),
        _paper_record(("copy", "lstm", 1, 256, 5e-3), loss=0.3, test=1.0),
    ]
    for order in itertools.permutations(tied):
        (best,) = select(list(order))
        assert best.spec.name == "copy/lstm2/h256-lr1e-04/seed0"  # "lr1e-04" < "lr5e-04"


def test_the_paper_table_names_each_cells_chosen_configuration() -> None:
    records = [
        _paper_record(coordinates, loss, test=0.5, guarded=False)
        for coordinates, loss in (
            (("copy", "lstm", 8, 512, 5e-4), 0.1),
            (("copy", "lstm", 1, 256, 1e-3), 0.4),
            (("copy", "stack", 1, 256, 1e-3), 0.2),
            (("copy", "stack", 1, 512, 5e-3), 0.3),
            (("copy", "deque", 1, 512, 5e-5), 0.05),
        )
    ]
    (table,) = Grefenstette2015().tables(records)
    assert list(table.rows) == [
        "copy Deep LSTM (8 layers, hidden 512, lr 5e-04)",
        "copy Stack-LSTM (hidden 256, lr 1e-03)",
        "copy DeQue-LSTM (hidden 512, lr 5e-05)",
    ]
    assert (
        "lowest training perplexity" in table.caption
        and "copy 4, reversal 8, bigram_flip 2" in table.caption
    )
    assert table.rows["copy Stack-LSTM (hidden 256, lr 1e-03)"]["test_coarse"].paper == Printed(0.0)
    lines = Grefenstette2015().findings(records)
    assert "copy, Deep LSTM: 8 layers, hidden 512, lr 5e-04, training perplexity 1.1052, " \
           "the lowest of 2 finished runs." in lines  # fmt: skip
    assert not any("target" in line for line in lines)


def test_select_refuses_runs_of_two_profiles() -> None:
    records = [
        _paper_record(("copy", "queue", 1, 256, 1e-3), loss=0.1, test=1.0),
        _record("quick", "copy/queue/seed0", (1.0, 1.0, 0.0), test=1.0),
    ]
    with pytest.raises(ValueError, match="records: expected the runs of one profile"):
        select(records)
