"""The ba2016 experiment: its runs, a smoke reproduce with Table 1 and the learning
curves, its splits kept in the data folder, and config checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import numpy as np
import pytest
import torch

from memrnn.errors import UserError
from memrnn.experiments.ba2016 import MODELS, PAPER, Ba2016, Ba2016Config, Model, load_splits
from memrnn.experiments.ba2016 import config as ba2016_config
from memrnn.experiments.ba2016.run import RetrievalRun
from memrnn.experiments.base import RunRecord
from memrnn.experiments.profiles import PROFILE_NAMES, Profile
from memrnn.models import model_names
from memrnn.runner.reproduce import reproduce
from memrnn.runner.sweep import LocalBackend
from memrnn.training.compiled import can_compile


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_runs_are_distinct_and_valid(profile: Profile) -> None:
    runs = Ba2016().runs(profile)
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs:
        Ba2016Config(**spec.config).validate()
        assert (spec.tags["model"], spec.tags["hidden"]) == (
            spec.config["model"],
            spec.config["hidden"],
        )
    cells = {(s.config["model"], s.config["hidden"]) for s in runs}
    if profile == "quick":
        assert cells == {(m, r) for m in MODELS for r in (20, 50)}
    if profile == "paper":
        assert cells == {(m, r) for m in MODELS for r in (20, 50, 100)}
    assert all(s.config["recurrent_scale"] == 1.0 for s in runs if s.config["model"] == "irnn")


def test_the_models_are_registered_models_and_the_papers_rows() -> None:
    assert set(get_args(Model)) == set(MODELS) <= set(model_names())
    assert list(PAPER["table1"]) == ["IRNN", "LSTM", "A-LSTM", "Fast weights"]
    assert PAPER["table1"]["Fast weights"]["R=20"].value == 1.81


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="model: expected fast_weights, irnn, lstm or alstm"):
        Ba2016Config(model="gru").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="hidden: expected an int >= 1"):
        Ba2016Config(hidden=0).validate()
    with pytest.raises(ValueError, match="norm: expected sum or slow, got 'both'"):
        Ba2016Config(norm="both").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="compiled: expected a bool, got 1"):
        Ba2016Config(compiled=1).validate()  # type: ignore[arg-type]


@pytest.mark.parametrize("profile", ["quick", "paper"])
@pytest.mark.parametrize("compiler", [True, False])
def test_the_profiles_compile_the_alstm_and_fast_weights_steps(
    profile: Profile, compiler: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a C++ compiler is found; without one every run is eager, and says so."""
    monkeypatch.setattr(ba2016_config, "can_compile", lambda: compiler)
    compiled = {(s.config["model"], s.config["compiled"]) for s in Ba2016().runs(profile)}
    assert compiled == {(m, compiler and m in ("alstm", "fast_weights")) for m in MODELS}
    assert not any(s.config.get("compiled") for s in Ba2016().runs("smoke"))
    assert "compiled by torch.compile where a C++ compiler is found" in Ba2016().scale(profile)
    assert "compiled" not in Ba2016().scale("smoke")


def test_a_compiler_is_looked_for_as_cxx_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "no-such-compiler-here")
    assert not can_compile()
    monkeypatch.setenv("CXX", "python3")  # any program on the PATH stands for one here
    assert can_compile()


needs_compiler = pytest.mark.skipif(not can_compile(), reason="no C++ compiler for inductor")


# The compiled steps' tests train at one size, so that inductor compiles each model once.
TINY = {"train_size": 64, "validation_size": 8, "test_size": 8, "hidden": 6, "batch_size": 16}


@needs_compiler
@pytest.mark.parametrize("model", ["alstm", "fast_weights"])
def test_the_compiled_step_is_the_eager_one_to_rounding(model: str) -> None:
    """The loss and every gradient of the compiled step, against the eager step of the
    same weights on the same batch."""
    runs = []
    for compiled in (False, True):
        torch.manual_seed(0)
        config = Ba2016Config(model=model, compiled=compiled, **TINY)  # type: ignore[arg-type]
        runs.append(RetrievalRun(config, torch.device("cpu"), None))
    batch = runs[0].training_batch(np.random.default_rng(1))
    results = []
    for run in runs:
        loss = run.loss(batch)
        grads = torch.autograd.grad(loss, list(run.model.parameters()))
        results.append((loss, grads))
    (eager, eager_grads), (built, built_grads) = results
    torch.testing.assert_close(built, eager, rtol=1e-5, atol=1e-6)
    for g_built, g_eager in zip(built_grads, eager_grads, strict=True):
        torch.testing.assert_close(g_built, g_eager, rtol=1e-4, atol=1e-6)


@needs_compiler
def test_every_run_of_a_process_trains_compiled() -> None:
    """Dynamo compiles one code at most ``recompile_limit`` times per process, then runs
    it eagerly; each run starts from empty caches, so none reaches the limit."""
    with torch._dynamo.config.patch(recompile_limit=1, fail_on_recompile_limit_hit=True):
        for model in ("fast_weights", "alstm"):  # another model: another graph
            config = Ba2016Config(model=model, compiled=True, **TINY)  # type: ignore[arg-type]
            run = RetrievalRun(config, torch.device("cpu"), None)
            run.loss(run.training_batch(np.random.default_rng(0)))


def test_a_step_that_cannot_be_compiled_says_how_to_train_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fails(*args: object) -> torch.Tensor:
        # its constructor's arguments differ between torch versions
        failure = Exception.__new__(torch._dynamo.exc.BackendCompilerFailed)
        Exception.__init__(failure, "no C++ compiler")
        raise failure

    monkeypatch.setattr(torch, "compile", lambda fn, **options: fails)
    config = Ba2016Config(compiled=True, train_size=16, validation_size=8, test_size=8)
    run = RetrievalRun(config, torch.device("cpu"), None)
    with pytest.raises(RuntimeError, match="compiled=False") as error:
        run.loss(run.training_batch(np.random.default_rng(0)))
    assert "no C++ compiler" in str(error.value)


def test_smoke_reproduce_keeps_its_splits_in_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    summary = reproduce([Ba2016()], "smoke", out, LocalBackend(workers=1))
    assert not summary.failed and summary.planned == 4
    results = json.loads((out / "results.json").read_text())
    table = [r for r in results if r["table"] == "table1"]
    assert {r["row"] for r in table} == {"Fast weights", "IRNN", "LSTM", "A-LSTM"}
    assert all(0 <= r["value"] <= 100 for r in table)
    report = (out / "report.md").read_text()
    assert "learning-curves" in report and "Fast weights test error" in report
    assert "The findings as the code words them, from a smoke run's numbers" in report
    # the four runs share one file of splits, under OUT/data; nothing lands in the cwd
    assert len(list((out / "data" / "retrieval").glob("*.npz"))) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_splits_are_written_once_and_read_again(tmp_path: Path) -> None:
    config = Ba2016Config(train_size=30, validation_size=10, test_size=20, data_seed=3)
    made = load_splits(config, None)  # in memory: nothing written
    written = load_splits(config, tmp_path)
    (path,) = (tmp_path / "retrieval").glob("*.npz")
    stamp = path.stat().st_mtime_ns
    read = load_splits(config, tmp_path)
    assert path.stat().st_mtime_ns == stamp  # read, not written again
    for split in ("train", "validation", "test"):
        for a, b, c in zip(*(getattr(s, split) for s in (made, written, read)), strict=True):
            assert np.array_equal(a, b) and np.array_equal(b, c)
    assert len(made.train[0]) == 30 and len(made.test[1]) == 20


def _record(model: str, hidden: int, seed: int, test_error: float) -> RunRecord:
    spec = next(s for s in Ba2016().runs("paper") if s.name == f"{model}/R{hidden}/seed{seed}")
    history = [(0, "val_error", 0.9), (10, "val_error", test_error)]
    return RunRecord(spec, {"test_error": test_error}, {}, "test", 1.0, history)


def test_table1_rows_in_the_papers_order_columns_by_r() -> None:
    records = [
        _record("fast_weights", 50, 0, 0.01),
        _record("irnn", 50, 0, 0.5),
        _record("irnn", 20, 0, 0.6),
        _record("irnn", 20, 1, 0.4),
    ]
    (table,) = Ba2016().tables(records)
    assert list(table.rows) == ["IRNN", "Fast weights"] and table.columns == ["R=20", "R=50"]
    cell = table.rows["IRNN"]["R=20"]
    assert cell.value == pytest.approx(50.0) and cell.std == pytest.approx(10.0)
    assert cell.paper is not None and cell.paper.value == 62.11
    assert Ba2016().findings(records)[0] == "IRNN test error: R=20: 50.00%, R=50: 50.00%."
    figures = Ba2016().figures(records)
    assert list(figures) == ["learning-curves"]
    assert [axes.get_title() for axes in figures["learning-curves"].axes] == ["R = 20", "R = 50"]
    assert Ba2016().figures([]) == {}


_SMALL = Ba2016Config(train_size=30, validation_size=10, test_size=20, data_seed=3)


def _rewritten(tmp_path: Path, change: str) -> Path:
    """The file of _SMALL's splits, damaged as ``change`` says."""
    load_splits(_SMALL, tmp_path)
    (path,) = (tmp_path / "retrieval").glob("*.npz")
    if change == "zero bytes":
        path.write_bytes(b"")
        return path
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    if change == "out of the vocabulary":
        arrays["test_inputs"] = arrays["test_inputs"] + 37
    elif change == "not an example":
        arrays["train_inputs"][4, -1] = 26  # the query is a digit, not a key
    elif change == "a wrong target":
        arrays["validation_targets"][2] = (arrays["validation_targets"][2] + 1) % 10
    else:  # fewer examples than the file name and its meta say
        arrays["test_inputs"], arrays["test_targets"] = (
            arrays["test_inputs"][:5],
            arrays["test_targets"][:5],
        )
    np.savez_compressed(path, **arrays)
    return path


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ("zero bytes", r"cannot read the retrieval splits \(EOFError"),
        ("out of the vocabulary", r"damaged retrieval splits \(test: symbol ids outside"),
        ("not an example", r"damaged retrieval splits \(train: example 4 .* a query that"),
        ("a wrong target", r"damaged retrieval splits \(validation: example 2 .* a target"),
        ("too few", r"damaged retrieval splits \(test: inputs \(5, 11\)"),
    ],
)
def test_a_damaged_splits_file_is_an_error_naming_it(
    tmp_path: Path, change: str, problem: str
) -> None:
    path = _rewritten(tmp_path, change)
    with pytest.raises(UserError, match=rf"{path.name}: {problem}"):
        load_splits(_SMALL, tmp_path)
