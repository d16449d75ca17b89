"""The experiments ``memrnn`` knows by name, found rather than listed.

Two sources: every module (or package) of ``memrnn.experiments`` that defines a concrete
``Experiment`` subclass with a ``name``, and every entry point of the group
``memrnn.experiments`` that installed packages declare, its value ``"module:Class"``,
for example in a ``pyproject.toml``::

    [project.entry-points."memrnn.experiments"]
    mypaper2024 = "mypackage.experiment:MyPaper2024"

An entry point's name must be its experiment's ``name``; it is imported only when used.
Each built-in experiment lives in the module of its name (``memrnn.experiments.trask2016``),
so asking for one by name imports that module alone.
"""

from __future__ import annotations

import importlib
import importlib.util
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
            raise _two_called(point.name, builtin or declared[point.name], point.value)
        declared[point.name] = point.value
    return declared


def _two_called(name: str, first: str, declared: str) -> UserError:
    """The error for an entry point ``declared`` under the name ``name`` of ``first``."""
    return UserError(
        f"two experiments are called {name!r}: {first}, and {declared} "
        f"(an entry point of the group {GROUP})"
    )


def _in_own_module(name: str) -> str | None:
    """ "module:Class" of the built-in experiment ``name``, found in its own module
    ``memrnn.experiments.<name>`` (where each built-in lives) without importing the
    others and what they import; None if that module does not define it."""
    module = f"{memrnn.experiments.__name__}.{name}"
    if not name.isidentifier() or importlib.util.find_spec(module) is None:
        return None
    found = [cls for cls in _defined_in(module) if cls.name == name]
    return _class_path(found[0]) if found else None


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
    """The experiment called ``name``; a UserError lists the known names otherwise.

    A built-in experiment is imported from its own module alone (an installed package
    that declares the same name is still refused)."""
    path = _in_own_module(name)
    if path is not None:
        for point in entry_points(group=GROUP):
            if point.name == name:
                raise _two_called(name, path, point.value)
    else:
        known = {**_builtin(), **_installed()}
        if name not in known:
            raise UserError(
                f"unknown experiment {name!r}; the experiments are: {', '.join(sorted(known))}"
            )
        path = known[name]
    experiment = load_experiment(path)
    if experiment.name != name:
        raise UserError(
            f"{path}: declared as experiment {name!r}, but is called {experiment.name!r}"
        )
    return experiment
