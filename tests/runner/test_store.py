"""The SQLite results store."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest

from memrnn.errors import UserError
from memrnn.experiments.base import RunOutput
from memrnn.runner.store import _SCHEMA, ResultsStore
from tests.runner.toy import ToyExperiment


def test_run_lifecycle(tmp_path: Path) -> None:
    spec, other = ToyExperiment().runs("smoke")
    with ResultsStore(tmp_path / "s.sqlite") as store:
        assert store.status(spec.key) is None
        store.start(spec, "v1")
        assert store.status(spec.key) == "running"
        store.fail(spec, "Traceback: boom")
        assert store.status(spec.key) == "failed"
        store.start(spec, "v2")  # a retry
        output = RunOutput(
            {"loss": 0.5}, [(10, "loss", 0.9), (20, "loss", 0.5)], {"w": [1, 2]}, 20, 1.5
        )
        store.finish(spec, output)
        store.start(other, "v2")
        assert store.status(spec.key) == "finished"
        (record,) = store.records("toy", "smoke")
        assert record.spec == spec
        assert record.metrics == {"loss": 0.5}
        assert record.artifacts == {"w": [1, 2]}
        assert record.code_version == "v2" and record.wall_seconds == 1.5
        assert store.history(spec.key) == [(10, "loss", 0.9), (20, "loss", 0.5)]
        rows = store.runs("toy")
        assert {r["status"] for r in rows} == {"finished", "running"}
        assert rows[0]["config"]["seed"] in (0, 1)
    mode = sqlite3.connect(tmp_path / "s.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_tags_are_stored_and_an_older_store_gains_them(tmp_path: Path) -> None:
    spec = dataclasses.replace(ToyExperiment().runs("smoke")[0], tags={"seed": 0, "size": "s"})
    path = tmp_path / "s.sqlite"
    old = sqlite3.connect(path)  # the schema before runs had tags
    old.executescript(_SCHEMA.replace("    tags         TEXT NOT NULL DEFAULT '{}',\n", ""))
    old.close()
    with ResultsStore(path) as store:
        store.start(spec, "v")
        store.finish(spec, RunOutput({"loss": 1.0}))
        (record,) = store.records("toy")
        assert record.spec == spec
        assert store.runs()[0]["tags"] == {"seed": 0, "size": "s"}


def test_an_older_store_allows_interrupted_runs_and_keeps_its_metrics(tmp_path: Path) -> None:
    spec, other = ToyExperiment().runs("smoke")
    path = tmp_path / "s.sqlite"
    old = sqlite3.connect(path)  # the schema before runs could be interrupted, tags added last
    old.executescript(
        _SCHEMA.replace(", 'interrupted'", "").replace(
            "    tags         TEXT NOT NULL DEFAULT '{}',\n", ""
        )
    )
    old.execute("ALTER TABLE runs ADD COLUMN tags TEXT NOT NULL DEFAULT '{}'")
    with old:
        old.execute(
            "INSERT INTO runs (key, experiment, name, profile, model, task, config, seed, "
            "code_version, started, status, wall_seconds, artifacts, tags) "
            "VALUES (?, 'toy', ?, 'smoke', ?, ?, ?, 0, 'v', 0, 'finished', 1.5, '{}', ?)",
            (
                spec.key,
                spec.name,
                spec.model,
                spec.task,
                json.dumps(dict(spec.config)),
                json.dumps(dict(spec.tags)),
            ),
        )
        old.execute("INSERT INTO metrics VALUES (?, 'loss', -1, 1.0)", (spec.key,))
        old.execute("INSERT INTO metrics VALUES (?, 'loss', 10, 2.0)", (spec.key,))
    old.close()
    with ResultsStore(path) as store:
        store.start(other, "v")
        store.interrupt(other)
        assert store.status(other.key) == "interrupted"
        (record,) = store.records("toy")
        assert record.metrics == {"loss": 1.0} and store.history(spec.key) == [(10, "loss", 2.0)]
        assert record.spec == spec and record.wall_seconds == 1.5
        assert store._db.execute("PRAGMA foreign_key_check").fetchall() == []
        store.finish(other, RunOutput({"loss": 3.0}))  # metrics still insert under the keys


def test_a_finished_run_is_never_set_back(tmp_path: Path) -> None:
    spec = ToyExperiment().runs("smoke")[0]
    with ResultsStore(tmp_path / "s.sqlite") as store:
        store.start(spec, "v1")
        store.finish(spec, RunOutput({"loss": 0.5}, [(10, "loss", 0.9)]))
        store.start(spec, "v2")  # as a second process on the folder once did
        store.fail(spec, "boom")
        store.interrupt(spec)
        store.finish(spec, RunOutput({"loss": 9.0}))
        assert store.status(spec.key) == "finished"
        (record,) = store.records("toy")
        assert record.metrics == {"loss": 0.5} and record.code_version == "v1"
        assert store.history(spec.key) == [(10, "loss", 0.9)]


def test_interrupt_and_fail_touch_only_running_runs(tmp_path: Path) -> None:
    spec, other = ToyExperiment().runs("smoke")
    with ResultsStore(tmp_path / "s.sqlite") as store:
        store.start(spec, "v")
        store.interrupt(spec)
        store.fail(spec, "late")
        assert store.status(spec.key) == "interrupted"
        store.interrupt(other)  # never started: nothing to record
        assert store.status(other.key) is None


def _damaged(path: Path, how: str) -> None:
    if how == "empty":
        path.write_bytes(b"")
    elif how == "folder":
        path.mkdir()
    elif how == "garbled header":
        path.write_bytes(b"this is not a database" * 300)
    elif how == "foreign database":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE recipes (name TEXT)")
    else:  # truncated in the middle of a page of a real store
        spec = ToyExperiment().runs("smoke")[0]
        with ResultsStore(path) as store:
            for i in range(200):
                named = dataclasses.replace(spec, name=f"run{i}")
                store.start(named, "v")
                store.finish(named, RunOutput({"loss": float(i)}, [(1, "x" * 200, 1.0)]))
        size = path.stat().st_size
        with path.open("r+b") as f:
            f.truncate(size // 2 + 100)


DAMAGE = ["empty", "folder", "garbled header", "foreign database", "truncated"]


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_store_is_named_and_left_as_it_is(tmp_path: Path, how: str) -> None:
    path = tmp_path / "store.sqlite"
    _damaged(path, how)
    before = None if path.is_dir() else path.read_bytes()
    with pytest.raises(UserError, match=f"^{path}: ") as error:
        with ResultsStore(path) as store:
            store.runs()
    assert "Traceback" not in str(error.value)
    assert path.is_dir() if before is None else path.read_bytes() == before
