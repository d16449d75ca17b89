"""The experiments ``memrnn`` knows by name, found rather than listed.

Two sources: every module (or package) of ``memrnn.experiments`` that defines a concrete
``Experiment`` subclass with a ``name``, and every entry point of the group
``memrnn.experiments`` that installed packages declare, its value ``"module:Class"``,
for example in a ``pyproject.toml``::

    [project.entry-points."memrnn.experiments"]
    mypaper2024 = "mypackage.experiment:MyPaper2024"

An entry point's name must be its experiment's ``name``; it is imported only when used.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache
from importlib.metadata import entry_points

import memrnn.experiments
from memrnn.errors import UserError
from memrnn.experiments.base import Experiment

GROUP = "memrnn.experiments"


def _defined_in(module_name: str) -> list[type[Experiment]]:
    """The concrete experiments that the module (or package) ``module_name`` defines."""
    module = importlib.import_module(module_name)
    return [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Experiment)
        and not inspect.isabstract(obj)
        and "name" in vars(obj)
        and (obj.__module__ == module_name or obj.__module__.startswith(module_name + "."))
    ]


@cache
def _builtin() -> dict[str, str]:
    """name -> "module:Class" of every experiment in this package."""
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(memrnn.experiments.__path__, "memrnn.experiments."):
        for cls in _defined_in(info.name):
            path = _class_path(cls)
            if found.setdefault(cls.name, path) != path:
                raise UserError(
                    f"two experiments are called {cls.name!r}: {found[cls.name]}, {path}"
                )
    return found


def _installed() -> dict[str, str]:
    """name -> "module:Class" of the experiments that installed packages declare."""
    declared: dict[str, str] = {}
    for point in entry_points(group=GROUP):
        builtin = _builtin().get(point.name)
        if builtin is not None or point.name in declared:
            other = builtin or declared[point.name]
            raise UserError(
                f"two experiments are called {point.name!r}: {other}, and {point.value} "
                f"(an entry point of the group {GROUP})"
            )
        declared[point.name] = point.value
    return declared


def experiment_names() -> list[str]:
    """Every experiment's name, sorted."""
    return sorted({**_builtin(), **_installed()})


def load_experiment(path: str) -> Experiment:
    """Instantiate the experiment class at ``module:Class``."""
    module, _, qualname = path.partition(":")
    cls = getattr(importlib.import_module(module), qualname)
    if not (inspect.isclass(cls) and issubclass(cls, Experiment)):
        raise UserError(f"{path}: not an Experiment subclass")
    experiment: Experiment = cls()
    return experiment


def _class_path(cls: type[Experiment]) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def experiment_path(experiment: Experiment) -> str:
    """Where a worker process can import ``experiment`` from."""
    return _class_path(type(experiment))


def get_experiment(name: str) -> Experiment:
    """The experiment called ``name``; a UserError lists the known names otherwise."""
    known = {**_builtin(), **_installed()}
    if name not in known:
        raise UserError(
            f"unknown experiment {name!r}; the experiments are: {', '.join(sorted(known))}"
        )
    experiment = load_experiment(known[name])
    if experiment.name != name:
        raise UserError(
            f"{known[name]}: declared as experiment {name!r}, but is called {experiment.name!r}"
        )
    return experiment
