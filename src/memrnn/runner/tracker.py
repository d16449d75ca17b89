"""Surviving the death of multiprocessing's resource tracker.

The process pool's semaphores are registered with a helper process, the resource
tracker. When that process is killed, Python starts a new one, which never heard of the
semaphores registered before: each one unregistered at the pool's end prints a KeyError
traceback (though the run finishes). Here the driver remembers what it registered and
tells a new tracker of it as soon as it sees one.
"""

from __future__ import annotations

import warnings
from multiprocessing import resource_tracker
from typing import Any

_TRACKER: Any = resource_tracker._resource_tracker
_live: set[tuple[str, str]] = set()
_seen: list[int | None] = [None]  # the tracker process last seen running


def _ensure_running() -> None:
    with warnings.catch_warnings():  # its "might leak" is answered below
        warnings.filterwarnings("ignore", "resource_tracker: process died", UserWarning)
        _TRACKER.ensure_running()
    pid = getattr(_TRACKER, "_pid", None)
    if _seen[0] is not None and pid != _seen[0]:  # started again: tell it what lives
        for name, rtype in sorted(_live):
            _TRACKER.register(name, rtype)
        warnings.warn(
            f"multiprocessing's resource tracker died; a new one was started and told of "
            f"the {len(_live)} semaphores in use",
            UserWarning,
            stacklevel=2,
        )
    _seen[0] = pid


def _register(name: str, rtype: str) -> None:
    _ensure_running()
    _live.add((name, rtype))
    _TRACKER.register(name, rtype)


def _unregister(name: str, rtype: str) -> None:
    _ensure_running()
    _live.discard((name, rtype))
    _TRACKER.unregister(name, rtype)


def _getfd() -> int:
    _ensure_running()
    return int(_TRACKER.getfd())


def remember_registrations() -> None:
    """From now on, a resource tracker started again hears of the semaphores registered
    before it. Idempotent; only the process that starts pools needs it."""
    if resource_tracker.register is _register:
        return
    # multiprocessing looks these up on the module at every call
    resource_tracker.register = _register  # type: ignore[assignment]
    resource_tracker.unregister = _unregister  # type: ignore[assignment]
    resource_tracker.ensure_running = _ensure_running
    resource_tracker.getfd = _getfd
