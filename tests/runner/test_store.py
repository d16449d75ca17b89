"""The SQLite results store."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

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
