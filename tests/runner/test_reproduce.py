"""reproduce: runs what is missing through a backend, stores it, writes the report."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from memrnn.errors import UserError
from memrnn.experiments.base import Profile, RunSpec
from memrnn.runner.reproduce import STORE_NAME, checkpoint_path, report, reproduce
from memrnn.runner.store import ResultsStore
from memrnn.runner.sweep import LocalBackend
from tests.runner.toy import ToyConfig, ToyExperiment


def test_reproduce_runs_stores_and_reports(tmp_path: Path) -> None:
    summary = reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=2))
    assert (summary.planned, summary.skipped, len(summary.finished)) == (2, 0, 2)
    results = json.loads((tmp_path / "results.json").read_text())
    assert {r["row"] for r in results} == {"seed0", "seed1"}
    loss = next(r for r in results if r["row"] == "seed0" and r["column"] == "loss")
    assert loss["paper_value"] == 0.01 and loss["seed"] == [0] and loss["profile"] == "smoke"
    assert loss["wall_seconds"] > 0 and loss["value"] > 0
    assert loss["code_version"].startswith("memrnn ")
    runs = json.loads((tmp_path / "runs.json").read_text())
    assert sorted(r["name"] for r in runs) == ["seed0", "seed1"]
    assert all(r["status"] == "finished" and r["config"]["steps"] == 40 for r in runs)
    assert "| seed0 | 0 | 40 |" in (tmp_path / "report.md").read_text()
    text = (tmp_path / "report.md").read_text()
    assert "## toy, profile smoke: Noisy linear regression" in text
    assert "This is the smoke profile" in text and "no target is judged" in text
    assert "2 runs (seeds 0, 1); " in text  # the seeds, apart from the seconds
    assert "![weights](figures/toy-smoke-weights.png)" in text
    assert (tmp_path / "figures" / "toy-smoke-weights.png").stat().st_size > 1000


def test_a_second_call_trains_nothing(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    with ResultsStore(tmp_path / STORE_NAME) as store:
        before = store.runs()
    summary = reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    assert summary.skipped == 2 and not summary.finished and not summary.failed
    with ResultsStore(tmp_path / STORE_NAME) as store:
        assert store.runs() == before  # same start times: nothing re-ran


def test_pool_and_inline_give_the_same_numbers(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path / "pool", LocalBackend(workers=2))
    reproduce([ToyExperiment()], "smoke", tmp_path / "inline", LocalBackend(workers=1))
    pool = json.loads((tmp_path / "pool" / "results.json").read_text())
    inline = json.loads((tmp_path / "inline" / "results.json").read_text())
    strip = [{k: v for k, v in r.items() if k != "wall_seconds"} for r in pool]
    assert strip == [{k: v for k, v in r.items() if k != "wall_seconds"} for r in inline]


class _FailingToy(ToyExperiment):
    def runs(self, profile: Profile) -> list[RunSpec]:
        good, bad = super().runs(profile)
        config = ToyConfig(**{**bad.config, "fail_at": 5})
        return [good, dataclasses.replace(bad, config=config.to_dict())]


def test_a_failing_run_is_recorded_and_the_rest_finish(tmp_path: Path) -> None:
    summary = reproduce([_FailingToy()], "smoke", tmp_path, LocalBackend(workers=1))
    assert len(summary.finished) == 1 and len(summary.failed) == 1
    assert "planned failure at step 5" in (summary.failed[0].error or "")
    with ResultsStore(tmp_path / STORE_NAME) as store:
        assert store.status(summary.failed[0].spec.key) == "failed"
    assert json.loads((tmp_path / "results.json").read_text())  # the report still came out


def test_a_crashed_run_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    """Leave one run 'running' with a checkpoint from mid-run, as a killed sweep would."""
    from memrnn.runner.train import train

    experiment = ToyExperiment()
    clean = tmp_path / "clean"
    reproduce([experiment], "smoke", clean, LocalBackend(workers=1))
    crashed = tmp_path / "crashed"
    spec = experiment.runs("smoke")[0]
    with ResultsStore(crashed / STORE_NAME) as store:
        store.start(spec, "old")
    half = ToyConfig(**{**spec.config, "steps": 20})  # same stream; the checkpoint at 20 is real
    train(experiment, half, checkpoint=checkpoint_path(crashed, spec))
    reproduce([experiment], "smoke", crashed, LocalBackend(workers=1))
    a = json.loads((clean / "results.json").read_text())
    b = json.loads((crashed / "results.json").read_text())
    assert [r["value"] for r in a] == [r["value"] for r in b]


def test_report_alone_rebuilds_from_the_store(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    first = (tmp_path / "results.json").read_text()
    (tmp_path / "results.json").unlink()
    (tmp_path / "report.md").unlink()
    report(tmp_path, [ToyExperiment()])
    assert (tmp_path / "results.json").read_text() == first
    assert (tmp_path / "report.md").exists()
    with pytest.raises(UserError, match="no results store here"):
        report(tmp_path / "empty", [ToyExperiment()])
    assert not (tmp_path / "empty").exists()


class _Unstored(ToyExperiment):
    """An experiment with nothing in the store, whose profiles are slow to list."""

    name = "unstored"

    def runs(self, profile: Profile) -> list[RunSpec]:
        raise AssertionError("listed the runs of an experiment the store holds none of")


def test_the_report_lists_no_runs_of_an_experiment_the_store_holds_none_of(
    tmp_path: Path,
) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    first = (tmp_path / "results.json").read_text()
    report(tmp_path, [ToyExperiment(), _Unstored()])
    assert (tmp_path / "results.json").read_text() == first
    assert "unstored" not in (tmp_path / "report.md").read_text()


def test_report_files_are_readable_by_others(tmp_path: Path) -> None:
    """Atomic writes go through mkstemp (mode 0600); the final files get the usual mode."""
    import os
    import stat

    mask = os.umask(0o022)
    try:
        reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    finally:
        os.umask(mask)
    for path in [
        tmp_path / "results.json",
        tmp_path / "report.md",
        *(tmp_path / "figures").iterdir(),
    ]:
        assert stat.S_IMODE(path.stat().st_mode) & 0o044 == 0o044, path


class _ChangedToy(ToyExperiment):
    """The toy experiment after its settings changed: seed0 trains longer."""

    def runs(self, profile: Profile) -> list[RunSpec]:
        specs = super().runs(profile)
        longer = {**specs[0].config, "steps": specs[0].config["steps"] + 10}
        return [dataclasses.replace(specs[0], config=longer), specs[1]]


def test_the_report_shows_only_the_runs_the_experiment_defines_now(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    summary = reproduce([_ChangedToy()], "smoke", tmp_path, LocalBackend(workers=1))
    assert [s.name for s in summary.finished] == ["seed0"]  # its key changed; seed1 kept
    text = (tmp_path / "report.md").read_text()
    assert "| seed0 | 0 | 50 |" in text and "| seed0 | 0 | 40 |" not in text
    assert "1 finished runs in the store with settings" in text
    runs = json.loads((tmp_path / "runs.json").read_text())
    assert len(runs) == 3  # the old run stays in the store and in runs.json


def test_only_the_smoke_report_says_it_judges_nothing(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "quick", tmp_path, LocalBackend(workers=1))
    text = (tmp_path / "report.md").read_text()
    assert "## toy, profile quick" in text and "This is the smoke profile" not in text


def test_the_report_reads_tags_from_the_experiment_not_the_store(tmp_path: Path) -> None:
    """A store written before runs had tags (or with other tags) reports the same."""
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    first = json.loads((tmp_path / "results.json").read_text())
    with ResultsStore(tmp_path / STORE_NAME) as store:
        store._db.execute("UPDATE runs SET tags = '{}'")
        store._db.commit()
    report(tmp_path, [ToyExperiment()])
    assert json.loads((tmp_path / "results.json").read_text()) == first


def test_the_report_gives_the_wall_time_from_first_start_to_last_end(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    with ResultsStore(tmp_path / STORE_NAME) as store:
        records = store.records("toy", "smoke")
        rows = {row["key"]: row for row in store.runs("toy")}
    assert all(r.span == (rows[r.spec.key]["started"], rows[r.spec.key]["ended"]) for r in records)
    first = min(r.span[0] for r in records if r.span)
    last = max(r.span[1] for r in records if r.span)
    text = (tmp_path / "report.md").read_text()
    assert f"({(last - first) / 60:.1f} minutes of wall time from the first run's start" in text
