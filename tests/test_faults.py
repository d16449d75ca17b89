"""Faults, as a hostile user or a bad day brings them: ``memrnn`` SIGKILLed at points
along a sweep (then rerun: the store and results.json must equal an uninterrupted run's),
its driver killed under a pool of workers (none may survive it), Ctrl-C and SIGTERM
(queued runs cancelled, running ones marked interrupted, the command back in seconds)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memrnn.runner.reproduce import STORE_NAME
from memrnn.runner.store import FINAL, ResultsStore
from tests.plugin import plugin_environment

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc, sends signals")

# The runner's toy experiment, installed as a package would be, so that the real command
# line runs it; its "quick" profile trains for hours, to be interrupted.
_FAULT_TOY = """
from memrnn.experiments.grid import Grid, grid_runs
from tests.runner.toy import ToyExperiment

LONG = Grid({"seed": (0, 1, 2, 3)},
            {"steps": 10**8, "lr": 1e-4, "eval_every": 10**6, "checkpoint_every": 200})


class FaultToy(ToyExperiment):
    name = "faulttoy"

    def runs(self, profile):
        if profile == "quick":
            return grid_runs(self, profile, LONG, name="seed{seed}",
                             labels=lambda c: ("linear", "regression"))
        return super().runs(profile)
"""

# Runs the command line with one function patched to SIGKILL the process at its nth call.
_KILL_AT = r"""
import os, signal, sys
from contextlib import contextmanager

point, nth, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
calls = 0


def due():
    global calls
    calls += 1
    return calls == nth


def die():
    os.kill(os.getpid(), signal.SIGKILL)


if point.startswith("checkpoint"):
    import memrnn.training.checkpoint as checkpoint

    write_atomic = checkpoint.write_atomic

    def patched(path, write):
        if point == "checkpoint-before" and due():
            die()
        if point == "checkpoint-write":  # the temporary file written, not yet renamed
            def write_then_die(f):
                write(f)
                f.flush()
                if due():
                    die()
            return write_atomic(path, write_then_die)
        write_atomic(path, write)
        if point == "checkpoint-after" and due():
            die()

    checkpoint.write_atomic = patched
elif point == "store-commit":
    from memrnn.runner.store import ResultsStore

    transaction = ResultsStore._transaction

    @contextmanager
    def patched(self):
        with transaction(self) as db:
            yield db
            if due():  # the statements ran, the commit did not
                die()

    ResultsStore._transaction = patched
elif point == "report":
    import memrnn.runner.report as report

    write_atomic = report.write_atomic

    def patched(path, write):
        def write_then_die(f):
            write(f)
            f.flush()
            if path.name == "results.json" and due():
                die()
        write_atomic(path, write_then_die)

    report.write_atomic = patched
from memrnn.cli import main

sys.exit(main(argv))
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("site")
    return plugin_environment(
        site, "memrnn_faulttoy", _FAULT_TOY, "faulttoy = memrnn_faulttoy:FaultToy"
    )


def _reproduce(out: Path, *options: str) -> list[str]:
    return ["reproduce", "faulttoy", "--out", str(out), "--quiet", *options]


def _memrnn(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memrnn.cli", *args], capture_output=True, text=True, env=env
    )


def _state(out: Path) -> dict[str, Any]:
    """What a sweep leaves that must not depend on how often it was interrupted: each
    run's status, final metrics, history and artifacts, and every results cell's value."""
    with ResultsStore(out / STORE_NAME) as store:
        runs = {
            row["key"]: (
                row["status"],
                row["artifacts"],
                store._db.execute(
                    "SELECT name, step, value FROM metrics WHERE run_key = ? ORDER BY name, step",
                    (row["key"],),
                ).fetchall(),
            )
            for row in store.runs()
        }
    cells = json.loads((out / "results.json").read_text())
    for cell in cells:
        del cell["wall_seconds"]  # a resumed run's wall time is its own
    return {"runs": runs, "cells": cells}


@pytest.fixture(scope="module")
def uninterrupted(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("whole")
    done = _memrnn(_reproduce(out, "--profile", "smoke", "--workers", "1"), env)
    assert done.returncode == 0, done.stderr
    state = _state(out)
    assert len(state["runs"]) == 2 and all(run[0] == "finished" for run in state["runs"].values())
    assert all(any(step == FINAL for _, step, _ in run[2]) for run in state["runs"].values())
    return state


# Two runs of 40 steps, a checkpoint every 10 (four each); transactions: start, start,
# finish, finish.
KILL_POINTS = [
    ("checkpoint-before", 1),  # before the first checkpoint
    ("checkpoint-after", 2),  # mid-run
    ("checkpoint-write", 3),  # a checkpoint half-made
    ("checkpoint-after", 6),  # mid-run, the first run finished in memory, not stored
    ("store-commit", 1),  # while the first run is recorded as started
    ("store-commit", 3),  # while the first finished run is committed
    ("store-commit", 4),  # while the last one is
    ("report", 1),  # while results.json is written
]


@pytest.mark.parametrize(("point", "nth"), KILL_POINTS)
def test_sigkill_then_rerun_equals_an_uninterrupted_sweep(
    point: str, nth: int, env: dict[str, str], uninterrupted: dict[str, Any], tmp_path: Path
) -> None:
    args = _reproduce(tmp_path, "--profile", "smoke", "--workers", "1")
    killed = subprocess.run(
        [sys.executable, "-c", _KILL_AT, point, str(nth), *args],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr  # the point was reached
    rerun = _memrnn(args, env)
    assert rerun.returncode == 0, rerun.stderr
    assert _state(tmp_path) == uninterrupted
    assert not list(tmp_path.rglob("*.tmp"))  # the killed write's temporary is gone


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``, from /proc."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended while we looked
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


_STARTED: set[int] = set()  # every driver and worker a test started


@pytest.fixture(autouse=True)
def _no_strays() -> Iterator[None]:
    """Whatever a failing test leaves running is killed, not left to burn the CPU: its
    drivers and their workers, adopted by init or not."""
    yield
    strays = _STARTED | {child for parent in _STARTED for child in _children(parent)}
    for pid in strays:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _STARTED.clear()


def _sigint_by_default() -> None:
    """Give the child Ctrl-C's default action: a suite started with ``&`` from a script
    inherits SIGINT ignored, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_pool(out: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], set[int]]:
    """A long sweep with two workers, returned once both train (checkpoints appear)."""
    driver = subprocess.Popen(
        [sys.executable, "-m", "memrnn.cli", *_reproduce(out, "--profile", "quick",
                                                        "--workers", "2")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,  # its own process group, as a shell gives a command
        preexec_fn=_sigint_by_default,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while len(list(out.glob("checkpoints/*.pt"))) < 2:
        assert driver.poll() is None, driver.communicate()
        assert time.monotonic() < deadline, "the workers never wrote a checkpoint"
        time.sleep(0.05)
    workers = {pid for pid in _children(driver.pid) if "spawn_main" in _cmdline(pid)}
    _STARTED.update({driver.pid, *workers})
    assert len(workers) == 2
    return driver, workers


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def test_no_worker_outlives_a_sigkilled_driver(env: dict[str, str], tmp_path: Path) -> None:
    driver, workers = _start_pool(tmp_path, env)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    killed = time.monotonic()
    while _alive(workers) and time.monotonic() - killed < 5:
        time.sleep(0.05)
    assert not _alive(workers), "workers still alive 5 s after their driver was killed"


@pytest.mark.parametrize(
    ("sent", "to_group", "status"),
    [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 128 + signal.SIGTERM)],
    ids=["ctrl-c", "sigterm"],
)
def test_an_interrupted_pool_stops_in_seconds_and_can_resume(
    sent: signal.Signals, to_group: bool, status: int, env: dict[str, str], tmp_path: Path
) -> None:
    driver, workers = _start_pool(tmp_path, env)
    sent_at = time.monotonic()
    if to_group:  # Ctrl-C in a terminal reaches the whole foreground group
        os.killpg(driver.pid, sent)
    else:
        os.kill(driver.pid, sent)
    _, err = driver.communicate(timeout=30)
    assert time.monotonic() - sent_at < 10
    assert driver.returncode == status, err
    assert "Traceback" not in err
    assert not _alive(workers)
    with ResultsStore(tmp_path / STORE_NAME) as store:  # two ran, two were queued
        assert [r["status"] for r in store.runs()] == ["interrupted"] * 4
    assert len(list(tmp_path.glob("checkpoints/*.pt"))) >= 2  # what resumes them


def test_ctrl_c_of_a_run_in_process_marks_it_interrupted(
    env: dict[str, str], tmp_path: Path
) -> None:
    driver = subprocess.Popen(
        [sys.executable, "-m", "memrnn.cli", *_reproduce(tmp_path, "--profile", "quick",
                                                        "--workers", "1")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=_sigint_by_default,
    )  # fmt: skip
    _STARTED.add(driver.pid)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("checkpoints/*.pt")):
        assert driver.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    driver.send_signal(signal.SIGINT)
    _, err = driver.communicate(timeout=30)
    assert driver.returncode == 130 and "interrupted" in err and "Traceback" not in err
    with ResultsStore(tmp_path / STORE_NAME) as store:
        assert {r["status"] for r in store.runs()} == {"interrupted"}


def test_ctrl_c_cancels_the_ray_backends_tasks(env: dict[str, str], tmp_path: Path) -> None:
    pytest.importorskip("ray")
    args = _reproduce(tmp_path, "--profile", "quick", "--workers", "2", "--backend", "ray")
    driver = subprocess.Popen(
        [sys.executable, "-m", "memrnn.cli", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True, preexec_fn=_sigint_by_default,
    )  # fmt: skip
    _STARTED.add(driver.pid)
    deadline = time.monotonic() + 180
    while len(list(tmp_path.glob("checkpoints/*.pt"))) < 2:
        assert driver.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    sent_at = time.monotonic()
    os.killpg(driver.pid, signal.SIGINT)
    _, err = driver.communicate(timeout=60)
    assert time.monotonic() - sent_at < 15
    assert driver.returncode == 130 and "Traceback" not in err
    with ResultsStore(tmp_path / STORE_NAME) as store:
        assert [r["status"] for r in store.runs()] == ["interrupted"] * 4
    written = {p: p.stat().st_mtime_ns for p in tmp_path.glob("checkpoints/*.pt")}
    time.sleep(2)  # a task still training would write a checkpoint every few ms
    assert {p: p.stat().st_mtime_ns for p in tmp_path.glob("checkpoints/*.pt")} == written
