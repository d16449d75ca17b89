"""Checkpoints that survive a crash mid-write and never unpickle arbitrary objects.

A checkpoint is a dict of tensors, numbers, strings, lists and dicts, written to a
temporary file in the same folder and renamed over the old one, so a reader sees either
the old checkpoint or the new one, never half of one. Loading uses
``torch.load(weights_only=True)``, which refuses anything but those plain types. The
payload is kept as bytes beside their SHA-256, checked when it is read: torch does not
check its own files, and a bit flipped on the disk would resume into other numbers. A
checkpoint that cannot be used all the same (a disk that lost its end, bytes garbled,
something else in its place) is moved aside by :func:`set_aside`, never deleted, so that
its run can start over while the file stays there to be looked at.
"""

from __future__ import annotations

import hashlib
import io
import os
import warnings
from pathlib import Path
from typing import Any

import torch

from memrnn.errors import UserError
from memrnn.io import write_atomic


class DamagedCheckpointWarning(UserWarning):
    """A checkpoint could not be used: it was moved aside and its run started over."""


class DamagedCheckpointError(ValueError):
    """A checkpoint that cannot be read, or does not hold what its reader needs.

    Attributes:
        path: the checkpoint.
        reason: what is wrong with it, in a few words.
    """

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


FORMAT = "memrnn-checkpoint-2"  # the payload as bytes, with its SHA-256


def save_checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically (temporary file, fsync, rename), as bytes
    with their SHA-256."""
    inner = io.BytesIO()
    torch.save(payload, inner)
    data = bytearray(inner.getbuffer())
    outer = {
        "format": FORMAT,
        "sha256": hashlib.sha256(data).hexdigest(),
        "payload": torch.frombuffer(data, dtype=torch.uint8),
    }
    write_atomic(path, lambda f: torch.save(outer, f))


def load_checkpoint(path: Path) -> dict[str, Any]:
    """Read a checkpoint written by ``save_checkpoint``; tensors are loaded on the CPU.

    Raises:
        DamagedCheckpointError: (a ValueError) ``path`` cannot be read as a checkpoint,
            for whatever reason (zero bytes, cut short, garbled, a folder, objects that
            are not plain data, which are never constructed, a payload whose SHA-256 is
            not the one saved with it), or holds no dict.
    """
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
        if isinstance(payload, dict) and payload.get("format") == FORMAT:
            data = payload["payload"].numpy().tobytes()
            if hashlib.sha256(data).hexdigest() != payload["sha256"]:
                raise DamagedCheckpointError(path, "its SHA-256 does not match its contents")
            payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except DamagedCheckpointError:
        raise
    # Whatever torch.load raises here is the file's doing: EOFError for zero bytes,
    # RuntimeError for a cut zip, UnpicklingError for garbled bytes or a crafted object,
    # IsADirectoryError, OSError ...
    except Exception as exc:
        raise DamagedCheckpointError(path, _first_line(exc)) from exc
    if not isinstance(payload, dict):
        raise DamagedCheckpointError(path, f"holds a {type(payload).__name__}, not a dict")
    return payload


def _first_line(exc: BaseException) -> str:
    message = str(exc).strip()
    return type(exc).__name__ + (f": {message.splitlines()[0]}" if message else "")


def set_aside(damaged: DamagedCheckpointError) -> Path:
    """Move the damaged checkpoint to ``NAME.damaged`` beside it (``NAME.damaged-2``,
    ``-3``, ... when that is taken: an earlier damaged copy is never overwritten), warn
    with a :class:`DamagedCheckpointWarning` naming it, why and where it went, and
    return where it went.

    Raises:
        UserError: it cannot be moved (a read-only folder, say).
    """
    path = damaged.path
    aside, n = path.with_name(f"{path.name}.damaged"), 1
    while os.path.lexists(aside):
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{n}")
    try:
        os.rename(path, aside)
    except OSError as exc:
        raise UserError(
            f"{path}: a damaged checkpoint ({damaged.reason}) that cannot be moved aside "
            f"({_first_line(exc)}); move or delete it to start the run over"
        ) from exc
    warnings.warn(
        f"{path}: damaged checkpoint ({damaged.reason}); moved to {aside}, the run starts over",
        DamagedCheckpointWarning,
        stacklevel=2,
    )
    return aside
