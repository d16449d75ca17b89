"""``reproduce`` and ``report`` under bad conditions: a busy folder, a run that cannot
run here, a store that lost its results, a damaged results file. Nothing is lost."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import pytest

from memrnn.errors import UserError
from memrnn.experiments.base import Profile, RunSpec
from memrnn.experiments.registry import experiment_names
from memrnn.runner.lock import folder_lock
from memrnn.runner.report import FewerResultsWarning, KeptFileWarning
from memrnn.runner.reproduce import STORE_NAME, _reported, report, reproduce
from memrnn.runner.store import ResultsStore
from memrnn.runner.sweep import LocalBackend
from tests.runner.toy import ToyConfig, ToyExperiment


def test_a_busy_folder_is_refused_and_left_alone(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    files = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with folder_lock(tmp_path):
        for attempt in (
            lambda: reproduce([ToyExperiment()], "quick", tmp_path, LocalBackend(workers=1)),
            lambda: report(tmp_path, [ToyExperiment()]),
        ):
            with pytest.raises(UserError, match="another memrnn process"):
                attempt()
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == files


class _NoSuchDevice(ToyExperiment):
    def runs(self, profile: Profile) -> list[RunSpec]:
        good, bad = super().runs(profile)
        config = ToyConfig(**{**bad.config, "device": "cuda:99"})
        return [good, dataclasses.replace(bad, config=config.to_dict())]


def test_every_run_is_checked_before_any_starts(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="toy/seed1: device: cuda:99 was asked for"):
        reproduce([_NoSuchDevice()], "smoke", tmp_path, LocalBackend(workers=1))
    with ResultsStore(tmp_path / STORE_NAME) as store:
        assert store.runs() == []  # not even the good run started
    assert not (tmp_path / "checkpoints").exists()


def test_a_report_with_fewer_results_keeps_the_previous_file(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    good = (tmp_path / "results.json").read_bytes()
    with ResultsStore(tmp_path / STORE_NAME) as store:  # a store that lost a run
        store._db.execute("DELETE FROM runs WHERE rowid = (SELECT min(rowid) FROM runs)")
        store._db.commit()
    with pytest.warns(FewerResultsWarning, match=r"of its results are not in the store"):
        report(tmp_path, [ToyExperiment()])
    assert len(json.loads((tmp_path / "results.json").read_text())) < len(json.loads(good))
    (kept,) = tmp_path.glob("results.previous-*.json")
    assert kept.read_bytes() == good
    with ResultsStore(tmp_path / STORE_NAME) as store:  # one that lost them all
        store._db.execute("DELETE FROM runs")
        store._db.commit()
    fewer = (tmp_path / "results.json").read_bytes()
    with pytest.raises(UserError, match="no finished run of the experiments' runs"):
        report(tmp_path, [ToyExperiment()])
    assert (tmp_path / "results.json").read_bytes() == fewer


def test_an_unreadable_results_file_is_kept_before_it_is_replaced(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    (tmp_path / "results.json").write_text('[{"experiment": "toy", "tab')
    with pytest.warns(KeptFileWarning, match="not written by a memrnn report, or changed"):
        report(tmp_path, [ToyExperiment()])
    (kept,) = tmp_path.glob("results.previous-*.json")
    assert kept.read_text() == '[{"experiment": "toy", "tab'


def test_the_same_results_replace_a_file_silently(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report(tmp_path, [ToyExperiment()])
    assert not list(tmp_path.glob("results.previous-*"))


def test_an_empty_store_is_refused_and_the_results_kept(tmp_path: Path) -> None:
    reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    good = (tmp_path / "results.json").read_bytes()
    for name in (STORE_NAME, f"{STORE_NAME}-wal", f"{STORE_NAME}-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    (tmp_path / STORE_NAME).write_bytes(b"")
    for attempt in (
        lambda: report(tmp_path, [ToyExperiment()]),
        lambda: reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1)),
    ):
        with pytest.raises(UserError, match=f"{tmp_path / STORE_NAME}: an empty file"):
            attempt()
        assert (tmp_path / "results.json").read_bytes() == good
        assert (tmp_path / STORE_NAME).read_bytes() == b""


def test_the_report_covers_every_registered_experiment_after_the_ones_run() -> None:
    names = [e.name for e in _reported([ToyExperiment()])]
    assert names == ["toy", *experiment_names()]
    assert [e.name for e in _reported(_reported([]))] == experiment_names()


def test_a_worker_that_dies_is_replaced_and_its_runs_finish(tmp_path: Path) -> None:
    from tests.runner.toy import DyingToy

    marker = tmp_path / "died"
    with pytest.warns(UserWarning, match=r"a worker process died; \d unfinished jobs start again"):
        summary = reproduce([DyingToy(marker)], "smoke", tmp_path / "out", LocalBackend(workers=2))
    assert marker.exists()  # a worker was killed
    assert not summary.failed and len(summary.finished) == 2
    with ResultsStore(tmp_path / "out" / STORE_NAME) as store:
        assert {run["status"] for run in store.runs()} == {"finished"}


def test_files_of_the_users_are_kept_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "figures").mkdir()
    mine = {
        "report.md": b"my notes",
        "runs.json": b"[1, 2]",
        "figures/toy-smoke-weights.png": b"my picture",
    }
    for name, data in mine.items():
        (tmp_path / name).write_bytes(data)
    with pytest.warns(KeptFileWarning) as caught:
        reproduce([ToyExperiment()], "smoke", tmp_path, LocalBackend(workers=1))
    assert len(caught) == 3
    for name, data in mine.items():
        path = tmp_path / name
        (kept,) = path.parent.glob(f"{path.stem}.previous-*{path.suffix}")
        assert kept.read_bytes() == data and path.read_bytes() != data
    with warnings.catch_warnings():  # the report's own files are replaced without a copy
        warnings.simplefilter("error")
        report(tmp_path, [ToyExperiment()])
