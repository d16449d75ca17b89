"""The registry finds experiments in this package and through entry points."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint

import pytest

from memrnn.errors import UserError
from memrnn.experiments import registry
from memrnn.experiments.registry import (
    experiment_names,
    experiment_path,
    get_experiment,
    load_experiment,
)
from memrnn.experiments.trask2016 import Trask2016

BUILTIN = ["ba2016", "grefenstette2015", "hewitt2020", "matrix", "paassen2021", "trask2016"]


def test_every_experiment_module_is_found_and_nothing_else() -> None:
    assert experiment_names() == BUILTIN  # no entry points installed in the test environment
    for name in BUILTIN:
        experiment = get_experiment(name)
        assert experiment.name == name
        assert type(load_experiment(experiment_path(experiment))) is type(experiment)
        # in the module of its name, where get_experiment looks first
        assert experiment_path(experiment).startswith(f"memrnn.experiments.{name}")


def test_an_experiment_asked_for_by_name_imports_no_other() -> None:
    probe = (
        "import sys\nfrom memrnn.experiments.registry import get_experiment\n"
        "get_experiment('trask2016').runs('smoke')\n"
        "print(sorted(m for m in sys.modules if m.startswith('memrnn.experiments.')\n"
        "             and m.count('.') == 2 or m == 'sklearn'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    imported = done.stdout.strip()
    assert "trask2016" in imported
    assert all(other not in imported for other in ["matrix", "paassen2021", "sklearn", "ba2016"])


def test_a_name_that_is_no_experiments_module_is_looked_up_among_all() -> None:
    for name in ["registry", "base", "no.such", "nope"]:
        with pytest.raises(UserError, match=f"unknown experiment '{name}'"):
            get_experiment(name)


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UserError, match="unknown experiment 'nope'; the experiments are: ba2016"):
        get_experiment("nope")


def test_load_experiment_refuses_what_is_not_an_experiment() -> None:
    with pytest.raises(
        UserError, match=r"memrnn\.experiments\.trask2016:stack_use: not an Experiment"
    ):
        load_experiment("memrnn.experiments.trask2016:stack_use")


def _declare(monkeypatch: pytest.MonkeyPatch, *points: tuple[str, str]) -> None:
    declared = [EntryPoint(name, value, registry.GROUP) for name, value in points]
    monkeypatch.setattr(registry, "entry_points", lambda group: declared)


def test_an_entry_point_adds_an_experiment(monkeypatch: pytest.MonkeyPatch) -> None:
    _declare(monkeypatch, ("aliased", "tests.experiments.test_registry:Renamed"))
    assert experiment_names() == sorted([*BUILTIN, "aliased"])
    assert type(get_experiment("aliased")) is Renamed


def test_an_entry_point_must_name_its_experiment(monkeypatch: pytest.MonkeyPatch) -> None:
    _declare(monkeypatch, ("other", "memrnn.experiments.trask2016:Trask2016"))
    with pytest.raises(
        UserError, match="declared as experiment 'other', but is called 'trask2016'"
    ):
        get_experiment("other")


def test_two_experiments_of_one_name_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _declare(monkeypatch, ("trask2016", "elsewhere:Trask"))
    for ask in (experiment_names, lambda: get_experiment("trask2016")):
        with pytest.raises(UserError, match="two experiments are called 'trask2016'"):
            ask()


class Renamed(Trask2016):
    """The tutorial's experiment under another name, as a package would declare one."""

    name = "aliased"
