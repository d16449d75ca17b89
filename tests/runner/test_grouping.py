"""Runs that an experiment lets train together reach it as one group job."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from pathlib import Path

import pytest

from memrnn.experiments.base import (
    FittedExperiment,
    Profile,
    RunContext,
    RunOutput,
    RunRecord,
    RunSpec,
)
from memrnn.experiments.grid import Grid, grid_runs
from memrnn.experiments.tables import Table
from memrnn.runner.group import run_group
from memrnn.runner.reproduce import checkpoint_path, plan_jobs, reproduce
from memrnn.runner.store import ResultsStore
from memrnn.runner.sweep import Job, LocalBackend, execute_job
from tests.runner.toy import ToyConfig, ToyExperiment

GRID = Grid({"width": (4, 5), "seed": (0, 1, 2)}, {"steps": 1})


class GroupingToy(FittedExperiment[ToyConfig]):
    """Runs of width 4 group by everything but their seed; width 5 runs alone. Each
    output says how many runs its call carried out."""

    name = "grouping-toy"
    title = reproduces = "a test"
    config_type = ToyConfig

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(self, profile, GRID, name="w{width}/seed{seed}", labels=lambda c: ("", ""))

    def group_key(self, config: ToyConfig) -> Hashable | None:
        return dataclasses.replace(config, seed=0) if config.width == 4 else None

    def fit_run(self, config: ToyConfig, context: RunContext) -> RunOutput:
        return RunOutput({"seed": float(config.seed), "members": 1.0})

    def fit_group(
        self, configs: Sequence[ToyConfig], contexts: Sequence[RunContext]
    ) -> list[RunOutput]:
        if any(c.fail_at for c in configs):
            raise RuntimeError("planned failure of the group")
        members = float(len(configs))
        return [RunOutput({"seed": float(c.seed), "members": members}) for c in configs]

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return []


def _names(jobs: list[Job]) -> list[list[str]]:
    return [[spec.name for spec, _ in job.runs] for job in jobs]


def test_runs_of_one_key_share_a_job_in_the_order_of_their_first_run(tmp_path: Path) -> None:
    experiment = GroupingToy()
    specs = experiment.runs("smoke")
    jobs = plan_jobs(experiment, specs, tmp_path, 1, None, group=16)
    assert _names(jobs) == [
        ["w4/seed0", "w4/seed1", "w4/seed2"],
        ["w5/seed0"],
        ["w5/seed1"],
        ["w5/seed2"],
    ]
    assert all(path == checkpoint_path(tmp_path, spec) for job in jobs for spec, path in job.runs)


def test_a_group_is_cut_at_the_largest_size_and_one_means_alone(tmp_path: Path) -> None:
    experiment = GroupingToy()
    specs = [s for s in experiment.runs("smoke") if s.config["width"] == 4]
    assert _names(plan_jobs(experiment, specs, tmp_path, 1, None, group=2)) == [
        ["w4/seed0", "w4/seed1"],
        ["w4/seed2"],
    ]
    assert len(plan_jobs(experiment, specs, tmp_path, 1, None, group=1)) == 3
    with pytest.raises(ValueError, match="group"):
        plan_jobs(experiment, specs, tmp_path, 1, None, group=0)


def _members(out: Path) -> dict[str, float]:
    with ResultsStore(out / "store.sqlite") as store:
        records = store.records("grouping-toy", "smoke")
    return {r.spec.name: r.metrics["members"] for r in records}


def test_reproduce_stores_each_member_of_a_group_as_its_own_run(tmp_path: Path) -> None:
    summary = reproduce([GroupingToy()], "smoke", tmp_path, LocalBackend(workers=2))
    assert len(summary.finished) == 6 and not summary.failed
    assert _members(tmp_path) == {
        **{f"w4/seed{k}": 3.0 for k in range(3)},
        **{f"w5/seed{k}": 1.0 for k in range(3)},
    }


def test_alone_when_asked(tmp_path: Path) -> None:
    reproduce([GroupingToy()], "smoke", tmp_path, LocalBackend(workers=1), group=1)
    assert set(_members(tmp_path).values()) == {1.0}


def test_a_failing_group_fails_each_of_its_runs(tmp_path: Path) -> None:
    specs = GroupingToy().runs("smoke")[:2]
    failing = [dataclasses.replace(s, config={**s.config, "fail_at": 3}) for s in specs]
    results = execute_job(
        Job(
            "tests.runner.test_grouping:GroupingToy", tuple((s, tmp_path / "c.pt") for s in failing)
        )
    )
    assert [r.output for r in results] == [None, None]
    assert all("planned failure of the group" in (r.error or "") for r in results)


def test_a_job_needs_a_run() -> None:
    with pytest.raises(ValueError, match="runs"):
        Job("tests.runner.test_grouping:GroupingToy", ())


def test_a_trained_experiment_groups_only_groupable_runs(tmp_path: Path) -> None:
    config = ToyConfig(steps=1)
    with pytest.raises(TypeError, match="GroupableRun"):
        run_group(ToyExperiment(), [config, config], checkpoints=[tmp_path / "a", tmp_path / "b"])
    with pytest.raises(ValueError, match="checkpoints"):
        run_group(GroupingToy(), [config, config], checkpoints=[tmp_path / "a"])
