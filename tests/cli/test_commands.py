"""The command line, run as a user would run it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memrnn import __version__
from memrnn.cli import main
from memrnn.runner.reproduce import STORE_NAME
from memrnn.runner.store import ResultsStore
from tests.plugin import plugin_environment


def memrnn(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memrnn.cli", *args], capture_output=True, text=True, check=check
    )


def test_demo_prints_figure_1a(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "NeuralStack" in out and "NeuralQueue" in out
    stack, queue = out.split("NeuralQueue")
    assert "2.80   (0.30, 0.00, 0.90)" in stack
    assert "2.70   (0.00, 0.30, 0.90)" in queue


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: memrnn" in capsys.readouterr().out


def test_console_script_version() -> None:
    assert memrnn("--version").stdout.strip() == f"memrnn {__version__}"


def test_list_names_every_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "trask2016:" in out and "reproduces: Trask (2016)" in out
    for profile in ("smoke", "quick", "paper"):
        assert f"  {profile}" in out
    assert out.count("  laptop") == 1  # the matrix's alone


def test_list_of_a_profile_only_some_experiments_have_lists_those(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["list", "--profile", "laptop"]) == 0
    out = capsys.readouterr().out
    assert "matrix:" in out and "trask2016" not in out
    assert "  laptop 225 runs" in out


def test_list_json_gives_every_run_of_a_profile_with_its_config(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from memrnn.experiments.registry import get_experiment

    assert main(["list", "trask2016", "--profile", "smoke", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    want = get_experiment("trask2016").runs("smoke")
    assert [run["name"] for run in listed] == [spec.name for spec in want]
    for run, spec in zip(listed, want, strict=True):
        assert run["config"] == dict(spec.config)
        assert run["key"] == spec.key and run["profile"] == "smoke"


def test_list_of_one_experiment_names_every_run(capsys: pytest.CaptureFixture[str]) -> None:
    from memrnn.experiments.registry import get_experiment

    assert main(["list", "ba2016", "--profile", "paper"]) == 0
    out = capsys.readouterr().out
    assert "trask2016" not in out and "quick" not in out
    for spec in get_experiment("ba2016").runs("paper"):
        assert spec.name in out
    assert main(["list", "nope"]) == 2
    assert "unknown experiment 'nope'" in capsys.readouterr().err


def _results(folder: Path) -> list[dict[str, object]]:
    """results.json without the wall times, which differ between runs."""
    rows = json.loads((folder / "results.json").read_text())
    return [{k: v for k, v in row.items() if k != "wall_seconds"} for row in rows]


def test_reproduce_smoke_end_to_end_and_again(tmp_path: Path) -> None:
    done = memrnn("reproduce", "trask2016", "--profile", "smoke", "--out", str(tmp_path), "--quiet")
    assert "3 runs planned, 0 already finished, 3 run now, 0 failed" in done.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    keys = {
        "experiment",
        "table",
        "row",
        "column",
        "value",
        "std",
        "paper_value",
        "paper_std",
        "bold",
        "paper_bold",
        "seed",
        "profile",
        "wall_seconds",
        "code_version",
    }
    assert results and all(set(row) == keys for row in results)
    assert {row["table"] for row in results} == {"gates", "accuracy", "seeds"}
    assert any(row["paper_value"] is not None for row in results)
    report = (tmp_path / "report.md").read_text()
    assert "## trask2016, profile smoke" in report and "Scale:" in report
    figures = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert figures == ["trask2016-smoke-accuracy-by-length.png", "trask2016-smoke-gate-traces.png"]

    with ResultsStore(tmp_path / STORE_NAME) as store:
        before = store.runs()
    again = memrnn(
        "reproduce", "trask2016", "--profile", "smoke", "--out", str(tmp_path), "--quiet"
    )
    assert "3 runs planned, 3 already finished, 0 run now" in again.stdout
    with ResultsStore(tmp_path / STORE_NAME) as store:
        assert store.runs() == before

    (tmp_path / "report.md").unlink()
    assert "report.md" in memrnn("report", "--out", str(tmp_path)).stdout
    assert (tmp_path / "report.md").exists()


TRAIN = [
    "train",
    "trask2016",
    "--profile",
    "smoke",
    "--quiet",
    "--set",
    "steps=120",
    "--set",
    "checkpoint_every=10",
    "--set",
    "eval_every=40",
]


def _only_run(folder: Path) -> tuple[dict[str, float], list[tuple[int, str, float]]]:
    with ResultsStore(folder / STORE_NAME) as store:
        (run,) = store.runs()
        (record,) = store.records("trask2016")
        return dict(record.metrics), store.history(run["key"])


def test_sigkill_then_resume_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    memrnn(*TRAIN, "--out", str(whole))

    proc = subprocess.Popen(
        [sys.executable, "-m", "memrnn.cli", *TRAIN, "--out", str(killed)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not list((killed / "checkpoints").glob("*.pt")) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL  # killed mid-run, not finished
    with ResultsStore(killed / STORE_NAME) as store:
        assert [r["status"] for r in store.runs()] == ["running"]

    memrnn(*TRAIN, "--out", str(killed), "--resume")
    assert _only_run(killed) == _only_run(whole)


def test_ray_backend_gives_the_same_results_as_local(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    smoke = ("reproduce", "trask2016", "--profile", "smoke", "--quiet", "--workers", "2")
    memrnn(*smoke, "--out", str(tmp_path / "local"))
    memrnn(*smoke, "--out", str(tmp_path / "ray"), "--backend", "ray")
    assert _results(tmp_path / "ray") == _results(tmp_path / "local")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["train", "nosuch"],
            "unknown experiment 'nosuch'; the experiments are: "
            "ba2016, grefenstette2015, hewitt2020, matrix, paassen2021, trask2016",
        ),
        (["reproduce", "nosuch"], "unknown experiment 'nosuch'"),
        (["train", "trask2016", "--set", "colour=red"], "--set colour: unknown setting"),
        (["train", "trask2016", "--set", "steps=lots"], "--set steps=lots: not a valid int"),
        (["train", "trask2016", "--set", "max_length=0"], "--set min_length: need 1 <= min_length"),
        (["train", "trask2016", "--run", "clever"], "--run clever: trask2016 has no such run"),
        (["report", "--out", "{tmp}/nothing"], "{tmp}/nothing/store.sqlite: no results store"),
        (
            ["reproduce", "--all", "--out", "{tmp}/file.txt/sub"],
            "--out {tmp}/file.txt/sub: cannot write",
        ),
        (
            ["reproduce", "--all", "--out", "{tmp}/out", "--data", "{tmp}/file.txt/sub"],
            "--data {tmp}/file.txt/sub: cannot write",
        ),
    ],
)
def test_user_errors_are_one_clear_line(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file.txt").write_text("not a folder")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("memrnn: error: " + message.replace("{tmp}", str(tmp_path)))
    assert err.count("\n") == 1


def test_errors_in_a_subprocess_have_no_traceback() -> None:
    done = memrnn("train", "trask2016", "--set", "lr=-1", check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == "memrnn: error: --set lr: expected a finite number > 0, got -1.0"
    unknown = memrnn("fly", check=False)
    assert unknown.returncode == 2 and "invalid choice: 'fly'" in unknown.stderr
    assert "Traceback" not in done.stderr + unknown.stderr


def test_help_describes_the_commands() -> None:
    top = memrnn("--help").stdout
    for command in ("demo", "list", "train", "reproduce", "report"):
        assert f"    {command}" in top
    assert "MEMRNN_DATA" in top and "profiles" in top
    listing = memrnn("list", "--help").stdout
    assert "--names" in listing and "entry point group memrnn.experiments" in listing


def test_list_names_prints_every_experiment_one_a_line() -> None:
    from memrnn.experiments.registry import experiment_names

    names = memrnn("list", "--names").stdout.split()
    assert names == experiment_names()
    assert {"ba2016", "grefenstette2015", "hewitt2020", "paassen2021", "trask2016"} <= set(names)


def _npz_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.npz"))


def test_the_data_folder_is_chosen_by_option_then_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--data wins over MEMRNN_DATA, which wins over OUT/data; nothing lands in the cwd."""
    monkeypatch.chdir(tmp_path)
    smoke = ["reproduce", "ba2016", "--profile", "smoke", "--quiet", "--workers", "1"]
    monkeypatch.setenv("MEMRNN_DATA", str(tmp_path / "env"))
    assert main([*smoke, "--out", str(tmp_path / "a"), "--data", str(tmp_path / "option")]) == 0
    assert _npz_files(tmp_path / "option") and not (tmp_path / "env").exists()
    assert main([*smoke, "--out", str(tmp_path / "b")]) == 0
    assert _npz_files(tmp_path / "env") == _npz_files(tmp_path / "option")
    monkeypatch.delenv("MEMRNN_DATA")
    assert main([*smoke, "--out", str(tmp_path / "c")]) == 0
    assert _npz_files(tmp_path / "c" / "data") == _npz_files(tmp_path / "option")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "c", "env", "option"]
    results = [_results(tmp_path / out) for out in "abc"]
    assert results[0] == results[1] == results[2]  # the folder changes where, not what


_PLUGIN = '''
"""A toy experiment from another package, found through its entry point."""
from dataclasses import dataclass

from memrnn.experiments.base import FittedExperiment, RunOutput
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.grid import Grid, grid_runs
from memrnn.experiments.tables import Table, group, mean_cell

PROFILES = {
    name: Grid({"size": sizes, "seed": (0, 1)})
    for name, sizes in (("smoke", (1, 2)), ("quick", (1, 2, 3)), ("paper", (1, 2, 3, 4)))
}


@dataclass(frozen=True)
class PluginConfig(TrainConfig):
    size: int = 1


class PluginToy(FittedExperiment[PluginConfig]):
    name = "plugintoy"
    title = "A plugged-in toy"
    reproduces = "nothing; a test of the entry point"
    config_type = PluginConfig

    def runs(self, profile):
        return grid_runs(
            self, profile, PROFILES[profile], name="size{size}/seed{seed}",
            labels=lambda c: ("toy", "sum"),
        )

    def fit_run(self, config, context):
        return RunOutput({"total": float(config.size + config.seed)})

    def tables(self, records):
        rows = {f"size {size}": {"total": mean_cell(runs, "total")}
                for size, runs in group(records, "size").items()}
        return [Table("totals", "Totals", ["total"], rows)]
'''


def test_an_installed_package_adds_an_experiment_through_its_entry_point(tmp_path: Path) -> None:
    env = plugin_environment(
        tmp_path / "site", "memrnn_plugintoy", _PLUGIN, "plugintoy = memrnn_plugintoy:PluginToy"
    )

    def plugged(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "memrnn.cli", *args],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
        return done.stdout

    assert "plugintoy" in plugged("list", "--names").split()
    listing = plugged("list", "plugintoy", "--profile", "smoke")
    assert "plugintoy: A plugged-in toy" in listing and "size2/seed1" in listing
    out = tmp_path / "out"
    done = plugged("reproduce", "plugintoy", "--profile", "smoke", "--out", str(out), "--quiet")
    assert "4 runs planned, 0 already finished, 4 run now, 0 failed" in done
    report = (out / "report.md").read_text()
    assert "## plugintoy, profile smoke: A plugged-in toy" in report
    rows = {r["row"]: r["value"] for r in json.loads((out / "results.json").read_text())}
    assert rows == {"size 1": 1.5, "size 2": 2.5}
    assert "plugintoy" not in memrnn("list", "--names").stdout  # only where it is installed


def test_a_damaged_checkpoint_is_a_one_line_warning_and_the_run_starts_over(
    tmp_path: Path,
) -> None:
    whole, damaged = tmp_path / "whole", tmp_path / "damaged"
    memrnn(*TRAIN, "--out", str(whole))
    with ResultsStore(whole / STORE_NAME) as store:
        (key,) = [r["key"] for r in store.runs()]
    checkpoint = damaged / "checkpoints" / f"{key}.pt"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.write_bytes(b"")  # a disk that lost the file's contents
    done = memrnn(*TRAIN, "--out", str(damaged), "--resume")
    warning = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warning == [
        f"memrnn: warning: {checkpoint}: damaged checkpoint (EOFError); moved to "
        f"{checkpoint}.damaged, the run starts over"
    ], done.stderr
    assert (damaged / "checkpoints" / f"{key}.pt.damaged").read_bytes() == b""
    assert _only_run(damaged) == _only_run(whole)


def test_seeds_run_a_profile_with_another_seed_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    smoke = ["matrix", "--profile", "smoke", "--seeds", "3", "4"]
    assert main(["list", *smoke, "--json"]) == 0
    assert {run["config"]["seed"] for run in json.loads(capsys.readouterr().out)} == {3, 4}
    out = ["--out", str(tmp_path)]
    assert main(["reproduce", *smoke, *out, "--quiet", "--workers", "1"]) == 0
    rows = json.loads((tmp_path / "results.json").read_text())
    assert rows and {row["experiment"] for row in rows} == {"matrix"}
    report = (tmp_path / "report.md").read_text()
    stability = r"Stable: .* seeds \[3, 4\] left out|Not stable: without seed [34], "
    assert re.search(stability, report)
    # the report again from the store alone, with the same seeds: the same runs
    assert main(["report", *out, "--seeds", "3", "4"]) == 0
    assert re.search(stability, (tmp_path / "report.md").read_text())


def test_train_at_another_seed_stores_the_run_under_that_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train --seeds`` names and tags the run by its seed, as ``reproduce --seeds``
    does; ``--set`` still changes the settings that do not name the run."""
    args = ["train", "trask2016", "--profile", "smoke", "--quiet", "--out", str(tmp_path)]
    assert main([*args, "--seeds", "7", "--run", "naive/seed7", "--set", "steps=3"]) == 0
    assert "naive/seed7 (smoke), seed 7" in capsys.readouterr().out
    with ResultsStore(tmp_path / STORE_NAME) as store:
        (run,) = store.runs()
    assert (run["name"], run["seed"], run["tags"]["seed"]) == ("naive/seed7", 7, 7)
    assert run["config"]["steps"] == 3


def test_train_moves_the_tag_of_a_coordinate_its_name_does_not_show(tmp_path: Path) -> None:
    """Ba et al.'s quick A-LSTM trains compiled, a coordinate of its grid (one value per
    model) that its name does not show: ``--set compiled=false`` trains it eagerly, its
    tag saying so, under the same name."""
    small = ["steps=2", "train_size=100", "validation_size=50", "test_size=50",
             "eval_every=1", "checkpoint_every=1", "compiled=false"]  # fmt: skip
    sets = [arg for value in small for arg in ("--set", value)]
    args = ["train", "ba2016", "--run", "alstm/R20/seed0", "--quiet", "--out", str(tmp_path)]
    assert main([*args, *sets]) == 0
    with ResultsStore(tmp_path / STORE_NAME) as store:
        (run,) = store.runs()
    assert run["name"] == "alstm/R20/seed0"
    assert run["tags"]["compiled"] is False and run["config"]["compiled"] is False


@pytest.mark.parametrize(
    ("seeds", "message"),
    [
        (["1", "1"], "--seeds: a seed is given twice"),
        (["-2"], "expected an int from 0 to 4294967295"),
        (["9223372036854775808"], "expected an int from 0 to 4294967295"),
    ],
)
def test_bad_seeds_are_refused(
    seeds: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["list", "matrix", "--seeds", *seeds])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_train_writes_tensorboard_events_and_a_short_log(tmp_path: Path) -> None:
    tb = tmp_path / "tb"
    done = memrnn("train", "trask2016", "--profile", "smoke", "--out", str(tmp_path / "o"),
                  "--tensorboard", str(tb))  # fmt: skip
    assert list(tb.glob("events.out.tfevents.*"))
    # stderr is a pipe here, as a file is: the bar is drawn at its start and end, not
    # at every one of the 20 steps
    assert 1 <= done.stderr.count("step/s") <= 3, done.stderr
