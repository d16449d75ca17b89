"""Writing files atomically: a reader sees the old file or the new one, never half of one;
and arrays with the parameters they were made from, read back without pickle."""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from memrnn.errors import UserError


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
    if recorded != wanted:
        raise UserError(
            f"{path}: the file records {recorded}, not the requested {wanted}; "
            f"delete it to make the {what} again"
        )
    return arrays
