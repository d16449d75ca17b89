"""Files: written atomically, so a reader sees the old file or the new one, never half of one;
arrays kept with the parameters they were made from and read back without pickle; and a
cache that makes such a file once and reads it afterwards (:func:`load_or_make`)."""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
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


def write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Call ``write`` on a temporary file beside ``path``, fsync it, rename it over ``path``.

    If ``write`` raises, the old file is untouched and the temporary file is removed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
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
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise UserError(
            f"{path}: cannot read the {what} ({exc}); delete it to make them again"
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
