"""The results store: one SQLite file, one row per run and one row per metric value.

Only the driver process writes it, and only one process works in an output folder at a
time (``memrnn.runner.lock``). Status changes are conditional all the same: a finished
run is never set back to running, so no interleaving can lose a result. A file that is
not a results store (empty, damaged, another database, a folder) is named in a
UserError and left as it is.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memrnn.errors import UserError
from memrnn.experiments.base import RunOutput, RunRecord, RunSpec

FINAL = -1  # the step recorded for a run's final metrics

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key          TEXT PRIMARY KEY,
    experiment   TEXT NOT NULL,
    name         TEXT NOT NULL,
    profile      TEXT NOT NULL,
    model        TEXT NOT NULL,
    task         TEXT NOT NULL,
    config       TEXT NOT NULL,
    tags         TEXT NOT NULL DEFAULT '{}',
    seed         INTEGER NOT NULL,
    code_version TEXT NOT NULL,
    started      REAL NOT NULL,
    ended        REAL,
    status       TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed', 'interrupted')),
    wall_seconds REAL,
    error        TEXT,
    artifacts    TEXT
);
CREATE TABLE IF NOT EXISTS metrics (
    run_key TEXT NOT NULL REFERENCES runs (key) ON DELETE CASCADE,
    name    TEXT NOT NULL,
    step    INTEGER NOT NULL,
    value   REAL NOT NULL,
    PRIMARY KEY (run_key, name, step)
);
"""


class ResultsStore:
    """Runs and their metrics in ``path``.

    Args:
        path: the store's file.
        create: make the file if it is missing (else a missing file is a UserError).

    Raises:
        UserError: ``path`` is a folder, an empty file, or not a results store (a damaged
            or foreign database); the file is left untouched.
    """

    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = path
        if path.is_dir():
            raise UserError(f"{path}: a folder where the results store should be")
        if path.exists() and path.stat().st_size == 0:
            raise UserError(
                f"{path}: an empty file, not a results store (its results are lost or it was "
                "never written); move it away to start a new store"
            )
        if not path.exists() and not create:
            raise UserError(f"{path}: no results store here; run `memrnn reproduce` first")
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(path)
            self._open()
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise UserError(
                f"{path}: not a readable results store ({error}); it is left as it is"
            ) from None

    def _open(self) -> None:
        (check,) = self._db.execute("PRAGMA quick_check(1)").fetchone()
        if check != "ok":
            raise sqlite3.DatabaseError(f"damaged: {check}")
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
        if tables and "runs" not in tables:
            raise sqlite3.DatabaseError(f"it holds tables {sorted(tables)}, not runs")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(runs)")}
        if "tags" not in columns:  # a store written before runs had tags
            self._db.execute("ALTER TABLE runs ADD COLUMN tags TEXT NOT NULL DEFAULT '{}'")
        (schema,) = self._db.execute("SELECT sql FROM sqlite_master WHERE name = 'runs'").fetchone()
        if "'interrupted'" not in schema:  # a store written before runs could be interrupted
            self._allow_interrupted()

    def _allow_interrupted(self) -> None:
        """Rebuild the runs table with the status 'interrupted' allowed, as SQLite's manual
        says to change a CHECK: make the new table, copy, drop the old, rename the new.
        Foreign keys stay off meanwhile, or dropping the runs would drop their metrics."""
        columns = ", ".join(row[1] for row in self._db.execute("PRAGMA table_info(runs)"))
        create = _SCHEMA.split("CREATE TABLE IF NOT EXISTS metrics")[0]
        self._db.execute("PRAGMA foreign_keys=OFF")
        with self._db:
            self._db.execute("DROP TABLE IF EXISTS runs_new")  # left by a killed rebuild
            self._db.execute(create.replace("EXISTS runs (", "EXISTS runs_new ("))
            self._db.execute(f"INSERT INTO runs_new ({columns}) SELECT {columns} FROM runs")
            self._db.execute("DROP TABLE runs")
            self._db.execute("ALTER TABLE runs_new RENAME TO runs")
        self._db.execute("PRAGMA foreign_keys=ON")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._db:  # commits, or rolls back on an exception
            yield self._db

    def status(self, key: str) -> str | None:
        """'running', 'finished', 'failed', 'interrupted', or None for a run never started."""
        row = self._db.execute("SELECT status FROM runs WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def start(self, spec: RunSpec, code_version: str) -> None:
        """Record that ``spec`` is running (again, if it crashed, failed or was
        interrupted before); a finished run stays finished."""
        with self._transaction() as db:
            db.execute(
                """INSERT INTO runs (key, experiment, name, profile, model, task, config, tags,
                                     seed, code_version, started, status)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')
                   ON CONFLICT (key) DO UPDATE SET status = 'running', started = excluded.started,
                       code_version = excluded.code_version, ended = NULL, error = NULL,
                       tags = excluded.tags
                   WHERE runs.status != 'finished'""",
                (
                    spec.key,
                    spec.experiment,
                    spec.name,
                    spec.profile,
                    spec.model,
                    spec.task,
                    json.dumps(dict(spec.config), sort_keys=True),
                    json.dumps(dict(spec.tags)),
                    spec.seed,
                    code_version,
                    time.time(),
                ),
            )

    def finish(self, spec: RunSpec, output: RunOutput) -> None:
        """Store a finished run's metrics, history and artifacts; a run already finished
        keeps the results it has."""
        rows = [(spec.key, name, FINAL, float(v)) for name, v in output.metrics.items()]
        rows += [(spec.key, name, step, float(v)) for step, name, v in output.history]
        with self._transaction() as db:
            if self.status(spec.key) == "finished":
                return
            db.execute("DELETE FROM metrics WHERE run_key = ?", (spec.key,))
            db.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?)", rows)
            db.execute(
                """UPDATE runs SET status = 'finished', ended = ?, wall_seconds = ?,
                       artifacts = ? WHERE key = ?""",
                (time.time(), output.wall_seconds, json.dumps(output.artifacts), spec.key),
            )

    def fail(self, spec: RunSpec, error: str) -> None:
        """Record that the running ``spec`` raised ``error`` (a finished run stays so)."""
        self._end(spec.key, "failed", error)

    def interrupt(self, spec: RunSpec) -> None:
        """Record that the running ``spec`` was stopped by the user (Ctrl-C) or a signal;
        its checkpoint lets the next call resume it."""
        self._end(spec.key, "interrupted", "interrupted before it finished")

    def _end(self, key: str, status: str, error: str) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE runs SET status = ?, ended = ?, error = ? "
                "WHERE key = ? AND status = 'running'",
                (status, time.time(), error, key),
            )

    def runs(self, experiment: str | None = None) -> list[dict[str, Any]]:
        """Every run's row as a dict (config and tags parsed), optionally of one experiment."""
        query = "SELECT * FROM runs" + (" WHERE experiment = ?" if experiment else "")
        cursor = self._db.execute(
            query + " ORDER BY experiment, profile, name", (experiment,) if experiment else ()
        )
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        for row in rows:
            row["config"], row["tags"] = self._json(row, "config"), self._json(row, "tags")
        return rows

    def _json(self, row: dict[str, Any], field: str) -> dict[str, Any]:
        """The JSON object in ``row[field]``; a UserError naming the store and the run
        where it is damaged."""
        try:
            value = json.loads(row[field] or "{}")
        except (TypeError, ValueError) as error:
            raise self._damaged(row, field, str(error)) from None
        if not isinstance(value, dict):
            raise self._damaged(row, field, f"a {type(value).__name__}, not an object")
        return value

    def _damaged(self, row: dict[str, Any], field: str, why: str) -> UserError:
        return UserError(
            f"{self.path}: run {row.get('name')!r} (key {row.get('key')}) has a damaged "
            f"{field} ({why}); delete that run's row, or the store, to run it again"
        )

    def history(self, key: str) -> list[tuple[int, str, float]]:
        cursor = self._db.execute(
            "SELECT step, name, value FROM metrics WHERE run_key = ? AND step != ? "
            "ORDER BY step, name",
            (key, FINAL),
        )
        return [(int(s), str(n), float(v)) for s, n, v in cursor.fetchall()]

    def records(self, experiment: str, profile: str | None = None) -> list[RunRecord]:
        """The finished runs of an experiment (and profile), as the report sees them."""
        records = []
        for row in self.runs(experiment):
            if row["status"] != "finished" or (profile and row["profile"] != profile):
                continue
            spec = RunSpec(
                row["experiment"],
                row["name"],
                row["profile"],
                row["config"],
                row["model"],
                row["task"],
                tags=row["tags"],
            )
            metrics = dict(
                self._db.execute(
                    "SELECT name, value FROM metrics WHERE run_key = ? AND step = ?",
                    (row["key"], FINAL),
                ).fetchall()
            )
            artifacts = self._json(row, "artifacts")
            try:
                history = self.history(spec.key)
                metrics = {str(k): float(v) for k, v in metrics.items()}
            except (TypeError, ValueError) as error:
                raise self._damaged(row, "metrics", str(error)) from None
            records.append(
                RunRecord(
                    spec,
                    metrics,
                    artifacts,
                    row["code_version"],
                    row["wall_seconds"],
                    history,
                    (row["started"], row["ended"]) if row["ended"] is not None else None,
                )
            )
        return records
