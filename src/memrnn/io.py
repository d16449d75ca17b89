"""Files: written atomically, so a reader sees the old file or the new one, never half of one;
the temporary files of writes that never finished (their process killed) found and removed;
arrays kept with the parameters they were made from and read back without pickle; and a
cache that makes such a file once and reads it afterwards (:func:`load_or_make`)."""

from __future__ import annotations

import json
import os
import re
import socket
import tempfile
import time
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import numpy as np

from memrnn.errors import UserError

T = TypeVar("T")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()  # what open() would have given; mkstemp's 0600 is too private

STALE_AFTER_SECONDS = 24 * 3600.0
"""How old a temporary file must be before :func:`remove_stale_temporaries` removes it
when it cannot tell whether its writer still runs."""

# mkstemp adds 8 characters of [a-z0-9_]. A temporary names its target, the writer's
# process id and a tag of the writer's host: ".results.json.4242-1a2b3c4d.x8k2_q0z.tmp".
# Older versions wrote ".results.json.x8k2_q0z.tmp", without a writer.
_WITH_WRITER = re.compile(
    r"\.(?P<target>.+)\.(?P<pid>[0-9]+)-(?P<host>[0-9a-f]{8})\.[a-z0-9_]{8}\.tmp", re.DOTALL
)
_WITHOUT_WRITER = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp", re.DOTALL)


def _host_tag() -> str:
    """Process ids are only meaningful on their own machine (and in their own container,
    which has a host name of its own): the temporary records which one wrote it."""
    return f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _alive(pid: int) -> bool | None:
    """Whether process ``pid`` of this machine runs (a zombie counts); None: cannot tell."""
    if os.name != "posix" or pid <= 0:  # elsewhere os.kill(pid, 0) would end the process
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, as another user's process
        return True
    except (OverflowError, OSError):
        return None
    return True


class _Judge:
    """Decides which temporaries are stale, asking about each writer's process once."""

    def __init__(self) -> None:
        self.host, self.now = _host_tag(), time.time()
        self._alive: dict[int, bool | None] = {}

    def stale_target(self, entry: os.DirEntry[str]) -> str | None:
        """The target of ``entry`` if it is a stale temporary of :func:`write_atomic`."""
        name = entry.name
        if not (name.startswith(".") and name.endswith(".tmp")):
            return None
        if not entry.is_file(follow_symlinks=False):
            return None
        match = _WITH_WRITER.fullmatch(name)
        if match is not None and match["host"] == self.host:
            pid = int(match["pid"])
            if pid not in self._alive:
                self._alive[pid] = _alive(pid)
            if self._alive[pid] is not None:
                return None if self._alive[pid] else match["target"]
        match = match or _WITHOUT_WRITER.fullmatch(name)
        if match is None:
            return None
        old = self.now - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_SECONDS
        return match["target"] if old else None


def _scan(folder: Path, *, top: bool = True) -> list[os.DirEntry[str]]:
    """The entries of ``folder``; none if it is gone, or if it is a subfolder that cannot
    be read (there is nothing to clean up there that could be removed)."""
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except FileNotFoundError:
        return []
    except OSError:
        if top:
            raise
        return []


def remove_stale_temporaries(folder: Path, *, recursive: bool = True) -> list[Path]:
    """Remove the temporary files that interrupted :func:`write_atomic` calls left in ``folder``.

    A write killed before its rename (SIGKILL, power loss) leaves ``.NAME.PID-HOST.XXXXXXXX.tmp``
    beside its target. Such a file is removed when its writer, process PID of this machine
    (HOST tags the host name), no longer runs. Temporaries whose writer cannot be asked, those
    of another machine sharing the folder and those of versions that did not record the
    writer (``.NAME.XXXXXXXX.tmp``), are removed only when older than
    :data:`STALE_AFTER_SECONDS`. Nothing else is touched: not other files, not the
    temporaries of running writers, not symbolic links, not folders; subfolders that
    cannot be read are passed over.

    Args:
        folder: where to look; a missing folder holds nothing to remove.
        recursive: look in its subfolders too (symbolic links to folders are not followed).

    Returns:
        The removed files, sorted.

    Raises:
        ValueError: ``folder`` exists but is not a folder.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"folder: {folder} is not a folder")
    judge, removed, pending = _Judge(), [], [folder]
    while pending:
        current = pending.pop()
        for entry in _scan(current, top=current == folder):
            if recursive and entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif judge.stale_target(entry) is not None:
                Path(entry.path).unlink(missing_ok=True)
                removed.append(Path(entry.path))
    return sorted(removed)


def _remove_stale_temporaries_of(path: Path) -> None:
    judge, prefix = _Judge(), f".{path.name}."
    for entry in _scan(path.parent):
        if entry.name.startswith(prefix) and judge.stale_target(entry) == path.name:
            Path(entry.path).unlink(missing_ok=True)


def write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Call ``write`` on a temporary file beside ``path``, fsync it, rename it over ``path``.

    If ``write`` raises, the old file is untouched and the temporary file is removed. The
    temporary names this process (see :func:`remove_stale_temporaries`), and the stale
    temporaries of earlier writes of ``path`` are removed first.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries_of(path)
    prefix = f".{path.name}.{os.getpid()}-{_host_tag()}."
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_arrays(path: Path, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` and the JSON of ``meta`` to the ``.npz`` file ``path`` atomically."""
    contents: dict[str, Any] = {"meta": np.array(json.dumps(meta)), **arrays}

    def write(f: BinaryIO) -> None:
        np.savez_compressed(f, **contents)

    write_atomic(path, write)


def load_arrays(path: Path, meta: Mapping[str, Any], what: str) -> dict[str, np.ndarray]:
    """The arrays of a file written by :func:`save_arrays`, read without pickle.

    ``meta`` is compared with what the file records (through JSON, so tuples equal lists):
    a file made with other parameters, or one that cannot be read, is a UserError naming
    the file and ``what`` it should hold, not silently replaced, since results may rest on it.
    """
    wanted = json.loads(json.dumps(meta))
    try:
        with np.load(path, allow_pickle=False) as data:
            recorded = json.loads(str(data["meta"]))
            arrays = {name: data[name] for name in data.files if name != "meta"}
        if not isinstance(recorded, dict):
            raise ValueError(f"its meta is {recorded!r}, not a JSON object")
    # Whatever fails here is the file's doing: a zero-byte file (EOFError), a garbled member
    # (zlib.error, BadZipFile on its CRC), a garbled .npy header (ValueError, TokenError), an
    # unsupported compression (NotImplementedError), a directory in its place (OSError), ...
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise UserError(
            f"{path}: cannot read the {what} ({reason}); delete it to make them again"
        ) from exc
    if "format" in wanted and recorded.get("format") != wanted["format"]:
        raise UserError(
            f"{path}: the {what} are in format {recorded.get('format')}, this version reads "
            f"format {wanted['format']}; delete it to make them again"
        )
    if recorded != wanted:
        raise UserError(
            f"{path}: the file records {recorded}, not the requested {wanted}; "
            f"delete it to make the {what} again"
        )
    return arrays


def load_or_make(
    path: str | os.PathLike[str],
    meta: Mapping[str, Any],
    make: Callable[[], T],
    what: str,
    *,
    to_arrays: Callable[[T], Mapping[str, np.ndarray]],
    from_arrays: Callable[[dict[str, np.ndarray]], T],
) -> T:
    """What ``make()`` returns, made once and kept in the ``.npz`` file ``path``.

    A missing file is made and written atomically with :func:`save_arrays`, ``meta``
    recorded beside the arrays. An existing file is read with :func:`load_arrays` and must
    record ``meta`` exactly: one written in another format (``meta["format"]``, a version
    to bump whenever the arrays ``make`` gives or their layout change) or with other
    parameters is an error naming the file, not silently replaced, since results may rest
    on it. So is one whose arrays ``from_arrays`` refuses (with a KeyError or ValueError).

    Args:
        path: the file.
        meta: what the value depends on, JSON-serialisable, with a ``"format"`` entry.
        make: makes the value when there is no file.
        what: what the file holds, in the plural, for messages ("Dyck splits").
        to_arrays, from_arrays: the value as named arrays and back.

    Raises:
        ValueError: ``meta`` has no ``"format"`` entry.
        UserError: (a ValueError) the file exists but records another format or other
            parameters, or cannot be read, or holds arrays ``from_arrays`` refuses.
    """
    if "format" not in meta:
        raise ValueError(f"meta: expected a 'format' entry, got {dict(meta)}")
    path = Path(path)
    if not path.exists():
        value = make()
        save_arrays(path, meta, to_arrays(value))
        return value
    arrays = load_arrays(path, meta, what)
    try:
        return from_arrays(arrays)
    except (KeyError, ValueError) as exc:
        raise UserError(f"{path}: damaged {what} ({exc}); delete it to make them again") from exc
