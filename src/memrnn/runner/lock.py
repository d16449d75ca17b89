"""One process at a time in an output folder: an operating-system lock on a file in it.

Two ``memrnn reproduce`` calls on one folder would both train every unfinished run and
race on its store and report. The lock is the kernel's (``flock`` on POSIX, ``msvcrt``
on Windows), so it is released when its holder exits in any way, SIGKILL included: no
stale lock file can block the folder. The holder's PID is written into the file only to
name it in the message.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memrnn.errors import UserError

LOCK_NAME = ".memrnn.lock"


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s lock for the duration of the block.

    Raises:
        UserError: another process holds it (its PID named), so this one does nothing.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if not _try_lock(fd):
            try:
                holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            except OSError:  # Windows locks are mandatory: the holder's bytes are closed
                holder = "unknown"
            raise UserError(
                f"{folder}: another memrnn process (pid {holder}) is working in this folder; "
                "wait for it to finish, or choose another --out"
            )
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)  # closing releases the lock
