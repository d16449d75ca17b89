"""Real commands with wrong values, as a hurried or hostile user types them: each must be
refused with one line naming the problem, exit status 2, no traceback and no work done."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memrnn.cli import main
from memrnn.runner.lock import folder_lock

TRASK = ["train", "trask2016", "--profile", "smoke"]
SET = [*TRASK, "--set"]

# (arguments, what the one line must say); {tmp} is a scratch folder holding "file.txt"
# (a file), "empty/store.sqlite" (zero bytes), "garbled/store.sqlite" (not SQLite),
# "folder/store.sqlite" (a directory) and "busy/" (locked by another holder).
BAD = [
    (["fly"], "invalid choice: 'fly'"),
    (["train"], "the following arguments are required: experiment"),
    (["train", "nosuch"], "unknown experiment 'nosuch'"),
    (["reproduce", "nosuch"], "unknown experiment 'nosuch'"),
    (["list", "nosuch"], "unknown experiment 'nosuch'"),
    ([*TRASK[:2], "--profile", "huge"], "argument --profile: invalid choice: 'huge'"),
    (["list", "--profile", "big"], "argument --profile: invalid choice: 'big'"),
    (["demo", "extra"], "unrecognized arguments: extra"),
    (["report", "--out"], "argument --out: expected one argument"),
    (["reproduce", "--workers", "0"], "argument --workers: expected an int >= 1, got '0'"),
    (["reproduce", "--workers", "-1"], "argument --workers: expected an int >= 1, got '-1'"),
    (["reproduce", "--workers", "two"], "argument --workers: expected an int >= 1, got 'two'"),
    (["reproduce", "--threads", "0"], "argument --threads: expected an int >= 1, got '0'"),
    (["reproduce", "--backend", "slurm"], "argument --backend: invalid choice: 'slurm'"),
    ([*TRASK, "--run", "clever"], "--run clever: trask2016 has no such run"),
    ([*SET], "argument --set: expected one argument"),
    ([*SET, "noequals"], "--set 'noequals': expected key=value"),
    ([*SET, "colour=red"], "--set colour: unknown setting"),
    ([*SET, "steps=lots"], "--set steps=lots: not a valid int"),
    ([*SET, "steps=0"], "--set steps: expected an int >= 1, got 0"),
    ([*SET, "steps=-5"], "--set steps: expected an int >= 1, got -5"),
    ([*SET, "batch_size=0"], "--set batch_size: expected an int >= 1, got 0"),
    ([*SET, "hidden_size=0"], "--set hidden_size: expected an int >= 1, got 0"),
    ([*SET, "memory_width=-1"], "--set memory_width: expected an int >= 1, got -1"),
    ([*SET, "vocab_size=0"], "--set vocab_size: expected an int >= 1, got 0"),
    ([*SET, "eval_size=0"], "--set eval_size: expected an int >= 1, got 0"),
    ([*SET, "lr=inf"], "--set lr: expected a finite number, got inf"),
    ([*SET, "lr=nan"], "--set lr: expected a finite number, got nan"),
    ([*SET, "lr=-1"], "--set lr: expected a finite number > 0, got -1.0"),
    ([*SET, "clip=nan"], "--set clip: expected a finite number, got nan"),
    ([*SET, "clip=-1"], "--set clip: expected a finite number >= 0, got -1.0"),
    ([*SET, "weight_decay=inf"], "--set weight_decay: expected a finite number, got inf"),
    ([*SET, "seed=-1"], "--set seed: expected an int >= 0, got -1"),
    ([*SET, "seed=1.5"], "--set seed=1.5: not a valid int"),
    # a run's coordinates name it: changed, it would be stored as the run it no longer is
    (
        [*SET, "seed=1"],
        "--set seed=1: the name of run naive/seed0 shows its seed, 0; --seeds 1 trains the "
        "profile's runs with it",
    ),
    (
        ["train", "grefenstette2015", "--profile", "smoke", "--set", "task=copy"],
        "--set task=copy: the name of run reversal/lstm/seed0 shows its task, reversal; "
        "--run copy/lstm/seed0 is that run",
    ),
    (
        ["train", "ba2016", "--profile", "quick", "--set", "hidden=100"],
        "--set hidden=100: the name of run fast_weights/R20/seed0 shows its hidden, 20; no "
        "run of the profile has hidden 100",
    ),
    ([*TRASK, "--seeds", "7", "--run", "naive/seed0"], "--run naive/seed0: trask2016 has no"),
    ([*SET, "device=cuda:99"], "device: cuda:99 was asked for but"),
    ([*SET, "device=cpufoo"], "--set device: expected auto, cpu, cuda or cuda:N, got 'cpufoo'"),
    ([*SET, "monitor=nope"], "monitor: trask2016's runs report no metric 'nope'"),
    ([*SET, "monitor_mode=up"], "--set monitor_mode=up: expected min or max"),
    ([*SET, "optimizer=lbfgs"], "--set optimizer=lbfgs: expected adam, adamw, rmsprop or sgd"),
    ([*SET, "max_length=0"], "--set min_length: need 1 <= min_length"),
    ([*SET, "eval_every=-1"], "--set eval_every: expected an int >= 0, got -1"),
    ([*SET, "patience=-2"], "--set patience: expected an int >= 0, got -2"),
    ([*SET, "autoencoder=maybe"], "--set autoencoder=maybe: not a valid bool"),
    ([*SET, "bias_range=-0.5"], "--set bias_range: expected a finite number >= 0, got -0.5"),
    (
        ["train", "grefenstette2015", "--profile", "smoke", "--set", "curriculum_threshold=2"],
        "--set curriculum_threshold: expected a finite number in [0, 1], got 2.0",
    ),
    (
        ["train", "grefenstette2015", "--profile", "smoke", "--set", "task=sorting"],
        "--set task=sorting: expected",
    ),
    (
        ["train", "ba2016", "--profile", "smoke", "--set", "decay=1.5"],
        "--set decay: expected a finite number in [0, 1], got 1.5",
    ),
    (
        ["train", "ba2016", "--profile", "smoke", "--set", "monitor=accuracy"],
        "monitor: ba2016's runs report no metric 'accuracy'",
    ),
    (
        ["train", "paassen2021", "--profile", "smoke", "--set", "sparsity=0"],
        "--set sparsity: expected a finite number in (0, 1], got 0.0",
    ),
    (
        ["train", "paassen2021", "--profile", "smoke", "--set", "C=0"],
        "--set C: expected a finite number > 0, got 0.0",
    ),
    (
        ["train", "hewitt2020", "--profile", "smoke", "--set", "clip=1"],
        "--set clip: the recipe clips no gradient",
    ),
    (
        ["train", "hewitt2020", "--profile", "smoke", "--set", "k=0"],
        "--set k: expected an int >= 1, got 0",
    ),
    (["report", "--out", "{tmp}/nothing"], "{tmp}/nothing/store.sqlite: no results store"),
    (["report", "--out", "{tmp}/empty"], "{tmp}/empty/store.sqlite: an empty file"),
    (["reproduce", "--all", "--out", "{tmp}/empty"], "{tmp}/empty/store.sqlite: an empty file"),
    (["report", "--out", "{tmp}/garbled"], "{tmp}/garbled/store.sqlite: not a readable"),
    (["report", "--out", "{tmp}/folder"], "{tmp}/folder/store.sqlite: a folder where"),
    ([*TRASK, "--out", "{tmp}/folder"], "{tmp}/folder/store.sqlite: a folder where"),
    (["reproduce", "--all", "--out", "{tmp}/busy"], "{tmp}/busy: another memrnn process"),
    ([*TRASK, "--out", "{tmp}/busy"], "{tmp}/busy: another memrnn process"),
    (["reproduce", "--all", "--out", "{tmp}/file.txt"], "--out {tmp}/file.txt: cannot write there"),
    (
        ["reproduce", "--all", "--out", "{tmp}/file.txt/sub"],
        "--out {tmp}/file.txt/sub: cannot write",
    ),
    ([*TRASK, "--data", "{tmp}/file.txt/sub"], "--data {tmp}/file.txt/sub: cannot write"),
]


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # the default --out lands here
    (tmp_path / "file.txt").write_text("not a folder")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "store.sqlite").write_bytes(b"")
    (tmp_path / "garbled").mkdir()
    (tmp_path / "garbled" / "store.sqlite").write_bytes(b"\x00garbage" * 1000)
    (tmp_path / "folder" / "store.sqlite").mkdir(parents=True)
    return tmp_path


def _exit_status(args: list[str]) -> int:
    try:
        return main(args)
    except SystemExit as done:  # argparse's own errors
        return int(done.code or 0)


def _check_refused(args: list[str], message: str, scratch: Path, err: str, status: int) -> None:
    assert status == 2, err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err  # one line
    assert err.startswith("memrnn"), err
    assert message.replace("{tmp}", str(scratch)) in err


@pytest.mark.parametrize(("args", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_invocation_is_one_line_and_status_2(
    args: list[str], message: str, scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [a.replace("{tmp}", str(scratch)) for a in args]
    before = sorted(p.relative_to(scratch) for p in scratch.rglob("*") if p.is_file())
    with folder_lock(scratch / "busy"):
        status = _exit_status(args)
    _check_refused(args, message, scratch, capsys.readouterr().err, status)
    after = sorted(p.relative_to(scratch) for p in scratch.rglob("*") if p.is_file())
    made = [p for p in after if p not in before and p.name != ".memrnn.lock"]
    assert made == []  # no run started: no store, no checkpoint, no data
    assert (scratch / "empty" / "store.sqlite").read_bytes() == b""


def test_there_are_at_least_forty_bad_invocations() -> None:
    assert len(BAD) >= 40


def test_the_ray_backend_without_ray_is_one_line(
    scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if it were not installed
    status = _exit_status(["reproduce", "trask2016", "--backend", "ray", "--out", "out"])
    message = "the Ray backend needs Ray: pip install 'memrnn[ray]'"
    _check_refused([], message, scratch, capsys.readouterr().err, status)


def test_debug_shows_the_traceback(scratch: Path) -> None:
    with pytest.raises(ValueError, match="lr: expected a finite number"):
        main(["--debug", *SET, "lr=inf"])


def test_a_closed_pipe_ends_quietly() -> None:
    """``memrnn list --json | head -1``: no BrokenPipeError when the reader goes away."""
    listing = subprocess.Popen(
        [sys.executable, "-m", "memrnn.cli", "list", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert listing.stdout is not None and listing.stdout.readline()
    listing.stdout.close()
    _, err = listing.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err
    assert listing.returncode in (0, 141)
