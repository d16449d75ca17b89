"""Tasks by name: ``make_task("copy", vocab_size=16)``.

Every task of memrnn registers itself when :mod:`memrnn.tasks` is imported. Another
package adds its own with the decorator, on a Task class or any function that returns a
Task::

    from memrnn.tasks import Task, register_task

    @register_task("my_parity")
    class Parity(Task):
        ...
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar, overload

from memrnn.errors import UserError
from memrnn.tasks.base import Task

TaskFactory = Callable[..., Task]
Factory = TypeVar("Factory", bound=TaskFactory)

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_FACTORIES: dict[str, TaskFactory] = {}


@overload
def register_task(name: str) -> Callable[[Factory], Factory]: ...


@overload
def register_task(name: str, factory: Factory) -> Factory: ...


def register_task(
    name: str, factory: Factory | None = None
) -> Factory | Callable[[Factory], Factory]:
    """Register ``factory`` (a Task class, or a function returning a Task, called with
    ``make_task``'s options) under ``name``; without ``factory``, a decorator that does.

    Raises:
        ValueError: ``name`` is not lower-case letters, digits and underscores starting
            with a letter, or is taken.
        TypeError: ``factory`` is not callable.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"name: expected lower-case letters, digits and _, got {name!r}")
    if name in _FACTORIES:
        raise ValueError(f"name: a task {name!r} is registered already")

    def add(factory: Factory) -> Factory:
        if not callable(factory):
            raise TypeError(f"factory: expected a callable, got {type(factory).__name__}")
        _FACTORIES[name] = factory
        return factory

    return add if factory is None else add(factory)


def task_names() -> tuple[str, ...]:
    """The registered names, sorted."""
    return tuple(sorted(_FACTORIES))


def make_task(name: str, **options: object) -> Task:
    """The task registered as ``name``, made with ``options``.

    Raises:
        UserError: (a ValueError) an unknown name.
        TypeError: an option the task does not take (Python names it), or a factory that
            returns no Task.
        ValueError: a bad option value, named by the task.
    """
    if name not in _FACTORIES:
        raise UserError(f"unknown task {name!r}; the tasks are {', '.join(task_names())}")
    task = _FACTORIES[name](**options)
    if not isinstance(task, Task):
        raise TypeError(f"task {name!r}: its factory returned a {type(task).__name__}, not a Task")
    return task
