"""Real commands with wrong values and hostile files, as a hurried or hostile user types
them: each must be refused with one line naming the problem, exit status 2, no traceback,
within a time limit, no work done and no file of the user's changed."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memrnn.cli import main
from memrnn.cli.pairs import train_on_pairs
from memrnn.experiments.base import RunSpec
from memrnn.runner.lock import folder_lock
from memrnn.runner.reproduce import STORE_NAME
from memrnn.runner.store import ResultsStore

TRASK = ["train", "trask2016", "--profile", "smoke"]
SET = [*TRASK, "--set"]
FIT = ["fit", "{tmp}/pairs.tsv", "--out", "{tmp}/fit", "--model", "lstm", "--steps", "2",
       "--quiet", "--option", "hidden_size=3"]  # fmt: skip
PAIRS = "a b\tb a\nb\tb\na a b\tb a a\n"
BAD_FILES = {  # in {tmp}/bad/
    "no_tab.tsv": b"a\tb\nc d\n",
    "two_tabs.tsv": b"a\tb\tc\n",
    "no_source.tsv": b"a\tb\n\tb\n",
    "blank.tsv": b"a\tb\n\nb\ta\n",
    "latin1.tsv": b"a\tb\ncaf\xe9\tb\n",
    "nul.tsv": b"a\x00b\tb\n",
    "long.tsv": b"a " * 10000 + b"a\tb\n",
    "long.txt": b"a " * 10000 + b"a\n",
    "empty.tsv": b"\n\n",
    "spaces.tsv": b"a  b\tb\n",
}

# (arguments, what the one line must say); {tmp} is a scratch folder holding "file.txt"
# (a file), "empty/store.sqlite" (zero bytes), "garbled/store.sqlite" (not SQLite),
# "folder/store.sqlite" (a directory), "busy/" (locked by another holder), pairs and
# sources files good and bad, and models saved by `fit`: whole, garbled and cut short.
BAD = [
    (["fly"], "invalid choice: 'fly'"),
    (["train"], "the following arguments are required: experiment"),
    (["train", "nosuch"], "unknown experiment 'nosuch'"),
    (["reproduce", "nosuch"], "unknown experiment 'nosuch'"),
    (["list", "nosuch"], "unknown experiment 'nosuch'"),
    ([*TRASK[:2], "--profile", "huge"], "argument --profile: invalid choice: 'huge'"),
    (["list", "--profile", "big"], "argument --profile: invalid choice: 'big'"),
    (
        [*TRASK[:2], "--profile", "laptop"],
        "--profile laptop: trask2016 has no such profile; its profiles are smoke, quick, paper",
    ),
    (["list", "ba2016", "--profile", "laptop"], "--profile laptop: ba2016 has no such profile"),
    (["reproduce", "hewitt2020", "--profile", "laptop"], "hewitt2020 has no such profile"),
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
    ([*TRASK, "--out", ""], "argument --out: expected a folder, got an empty path"),
    ([*TRASK, "--tensorboard", ""], "argument --tensorboard: expected a folder, got an empty"),
    ([*TRASK, "--seeds", "99999999999999999999"], "expected an int from 0 to 4294967295"),
    ([*SET, "steps=99999999999999999999"], "--set steps: expected an int <= 9223372036854775807"),
    ([*SET, "seed=99999999999"], "--set seed: expected an int in 0..4294967295"),
    ([*SET, "lr=0.1", "--set", "lr=0.2"], "--set lr: given twice"),
    (["reproduce", "trask2016", "--out", ""], "argument --out: expected a folder, got an empty"),
    # your own data: `fit` with a damaged, endless or hostile file, or wrong values
    ([*FIT[:1], "{tmp}/none.tsv", *FIT[2:]], "{tmp}/none.tsv: cannot read the pairs"),
    ([*FIT[:1], "{tmp}/folder", *FIT[2:]], "{tmp}/folder: cannot read the pairs"),
    ([*FIT[:1], "/dev/zero", *FIT[2:]], "/dev/zero: larger than 256 MiB"),
    ([*FIT[:1], "{tmp}/bad/no_tab.tsv", *FIT[2:]], "no_tab.tsv, line 2: no tab"),
    ([*FIT[:1], "{tmp}/bad/two_tabs.tsv", *FIT[2:]], "two_tabs.tsv, line 1: 2 tabs"),
    ([*FIT[:1], "{tmp}/bad/no_source.tsv", *FIT[2:]], "no_source.tsv, line 2: an empty source"),
    ([*FIT[:1], "{tmp}/bad/blank.tsv", *FIT[2:]], "blank.tsv, line 2: a blank line"),
    ([*FIT[:1], "{tmp}/bad/latin1.tsv", *FIT[2:]], "latin1.tsv, line 2: not UTF-8"),
    ([*FIT[:1], "{tmp}/bad/nul.tsv", *FIT[2:]], "nul.tsv, line 1: a NUL character"),
    ([*FIT[:1], "{tmp}/bad/long.tsv", *FIT[2:]], "long.tsv, line 1: 10001 tokens in the source"),
    ([*FIT[:1], "{tmp}/bad/empty.tsv", *FIT[2:]], "empty.tsv: an empty file"),
    ([*FIT[:1], "{tmp}/bad/spaces.tsv", *FIT[2:]], "spaces.tsv, line 1: an empty token"),
    ([*FIT, "--model", "nosuch"], "model: expected one of the models that read tokens"),
    ([*FIT, "--model", "esn"], "model: expected one of the models that read tokens"),
    ([*FIT, "--valid", "{tmp}/none.tsv"], "{tmp}/none.tsv: cannot read the pairs"),
    ([*FIT, "--valid", "{tmp}/unknown.tsv"], "unknown.tsv, line 1: unknown source token 'z'"),
    ([*FIT, "--set", "colour=red"], "--set colour: unknown setting"),
    ([*FIT, "--set", "model=gru"], "--set model: given"),
    ([*FIT, "--set", "lr=nan"], "--set lr: expected a finite number, got nan"),
    ([*FIT, "--set", "steps=99999999999999999999"], "--set steps: expected an int <="),
    ([*FIT, "--set", "lr=0.1", "--set", "lr=0.2"], "--set lr: given twice"),
    ([*FIT, "--option", "size"], "--option 'size': expected KEY=VALUE"),
    ([*FIT, "--option", "colour=red"], "model options: colour: 'lstm' takes no such option"),
    ([*FIT[:-2], "--option", "hidden_size=0"], "model options: hidden_size: expected an int"),
    ([*FIT, "--option", "hidden_size=4"], "--option hidden_size: given twice"),
    ([*FIT, "--steps", "0"], "argument --steps: expected an int >= 1, got '0'"),
    ([*FIT, "--seed", "-1"], "argument --seed: expected an int from 0 to 4294967295"),
    ([*FIT, "--seed", "99999999999999999999"], "argument --seed: expected an int from 0 to"),
    ([*FIT, "--restarts", "0"], "argument --restarts: expected an int >= 1, got '0'"),
    ([*FIT, "--restarts", "101"], "restarts: expected an int in 1..100, got 101"),
    ([*FIT[:2], "--out", "", *FIT[4:]], "argument --out: expected a folder, got an empty path"),
    ([*FIT[:2], "--out", "{tmp}/file.txt", *FIT[4:]], "--out {tmp}/file.txt: cannot write"),
    ([*FIT[:2], "--out", "{tmp}/model", *FIT[4:]], "{tmp}/model holds a model saved by an"),
    ([*FIT, "--tokens", "bytes"], "argument --tokens: invalid choice: 'bytes'"),
    ([*FIT, "--tensorboard", ""], "argument --tensorboard: expected a folder, got an empty"),
    # `decode` and `score` with a missing or damaged model, or hostile inputs
    (["decode", "{tmp}/nomodel", "{tmp}/inputs.txt"], "{tmp}/nomodel/model.json: no model"),
    (["decode", "{tmp}/model", "{tmp}/pairs.tsv"], "pairs.tsv, line 1: a tab; expected one"),
    (["decode", "{tmp}/model", "{tmp}/unknown.txt"], "unknown.txt, line 1: unknown source"),
    (["decode", "{tmp}/model", "/dev/zero"], "/dev/zero: larger than 256 MiB"),
    (["decode", "{tmp}/model", "{tmp}/bad/long.txt"], "long.txt, line 1: 10001 tokens in"),
    (["decode", "{tmp}/model", "{tmp}/none.txt"], "{tmp}/none.txt: cannot read the sources"),
    (["decode", "{tmp}/garbled_model", "{tmp}/inputs.txt"], "model.json: not a memrnn model"),
    (["decode", "{tmp}/cut_model", "{tmp}/inputs.txt"], "model.safetensors: not the weights"),
    (["score", "{tmp}/nomodel", "{tmp}/pairs.tsv"], "{tmp}/nomodel/model.json: no model"),
    (["score", "{tmp}/model", "{tmp}/none.tsv"], "{tmp}/none.tsv: cannot read the pairs"),
    (["score", "{tmp}/model", "{tmp}/bad/no_tab.tsv"], "no_tab.tsv, line 2: no tab"),
    (["score", "{tmp}/model", "{tmp}/unknown.tsv"], "unknown.tsv, line 1: unknown source"),
    (["score", "{tmp}/model", "/dev/urandom"], "/dev/urandom: larger than 256 MiB"),
    (["reproduce", "trask2016", "--address", "10.0.0.1:6379"], "--backend ray"),
    # a report of nothing leaves the report there as it was
    (["report", "--out", "{tmp}/fresh"], "{tmp}/fresh/store.sqlite: no finished run"),
    (["report", "--out", "{tmp}/fresh", "--seeds", "7"], "(with --seeds, of those seeds)"),
    (["report", "--out", "{tmp}/torn"], "store.sqlite: run 'naive/seed0' (key "),
]

# Runs that start and then fail: one line, and the user's files untouched.
FAILING = [
    ([*FIT, "--set", "lr=1e308"], "FloatingPointError: training loss became nan at step"),
    ([*FIT[:-2], "--option", "hidden_size=100000000"], "out of memory ("),
    ([*FIT, "--set", "batch_size=1000000000000"], "batch_size * max_length: 1000000000000 * "),
]


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("saved")
    (folder / "pairs.tsv").write_text(PAIRS)
    train_on_pairs(folder / "pairs.tsv", folder / "model", model="lstm", steps=1, quiet=True,
                   model_options={"hidden_size": 3})  # fmt: skip
    return folder / "model"


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, saved_model: Path) -> Path:
    monkeypatch.chdir(tmp_path)  # the default --out lands here
    (tmp_path / "pairs.tsv").write_text(PAIRS)
    (tmp_path / "inputs.txt").write_text("a b\nb\n")
    (tmp_path / "unknown.tsv").write_text("z\tb\n")
    (tmp_path / "unknown.txt").write_text("z\n")
    (tmp_path / "bad").mkdir()
    for name, data in BAD_FILES.items():
        (tmp_path / "bad" / name).write_bytes(data)
    for name in ("model", "garbled_model", "cut_model"):
        shutil.copytree(saved_model, tmp_path / name, ignore=shutil.ignore_patterns("*.lock"))
    (tmp_path / "garbled_model" / "model.json").write_text("{not json")
    weights = tmp_path / "cut_model" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    (tmp_path / "file.txt").write_text("not a folder")
    with ResultsStore(tmp_path / "fresh" / STORE_NAME):  # a store with no runs
        pass
    (tmp_path / "fresh" / "report.md").write_text("my own notes")
    with ResultsStore(tmp_path / "torn" / STORE_NAME) as store:  # a run's row damaged
        store.start(RunSpec("trask2016", "naive/seed0", "smoke", {"seed": 0}, "m", "t"), "v")
        store._db.execute("UPDATE runs SET status = 'finished', config = '{not json'")
        store._db.commit()
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


class Hung(BaseException):
    """A command ran past its time limit."""


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Raise ``Hung`` in the test if its body runs longer than ``seconds``."""

    def hung(signum: int, frame: object) -> None:
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _files(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _run_hostile(
    args: list[str], message: str, scratch: Path, capsys: pytest.CaptureFixture[str]
) -> list[Path]:
    """Run ``args`` under a time limit; check the one line and that no file changed.
    Returns the files it made."""
    args = [a.replace("{tmp}", str(scratch)) for a in args]
    before = _files(scratch)
    with folder_lock(scratch / "busy"), time_limit(LIMIT_S):
        status = _exit_status(args)
    _check_refused(args, message, scratch, capsys.readouterr().err, status)
    after = _files(scratch)
    assert {p: after.get(p) for p in before} == before  # the user's files as they were
    return [p for p in after if p not in before and p.name != ".memrnn.lock"]


LIMIT_S = 60  # seconds a refusal may take on the slowest CI machine


@pytest.mark.parametrize(("args", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_invocation_is_one_line_and_status_2(
    args: list[str], message: str, scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = _run_hostile(args, message, scratch, capsys)
    assert made == []  # no run started: no store, no checkpoint, no data


@pytest.mark.parametrize(("args", "message"), FAILING, ids=[" ".join(a) for a, _ in FAILING])
def test_a_run_that_fails_is_one_line_and_status_2(
    args: list[str], message: str, scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = _run_hostile(args, message, scratch, capsys)
    assert all(p.parts[0] == "fit" for p in made)  # only in its own --out


def test_there_are_at_least_eighty_hostile_cases() -> None:
    assert len(BAD) + len(FAILING) >= 80


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


def test_an_unreachable_ray_cluster_is_one_line_not_a_hang(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    code = (
        "import memrnn.runner.sweep as sweep; sweep.RAY_CONNECT_S = 3\n"
        "from memrnn.cli import main\n"
        "raise SystemExit(main(['reproduce', 'trask2016', '--profile', 'smoke', '--backend',"
        f" 'ray', '--address', '127.0.0.1:1', '--out', {str(tmp_path / 'out')!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]  # Ray logs its retries before it
    assert last.startswith("memrnn: error: Ray cluster 127.0.0.1:1: "), done.stderr
    assert "Traceback" not in done.stderr
