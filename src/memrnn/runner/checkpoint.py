"""Checkpoints that survive a crash mid-write and never unpickle arbitrary objects.

A checkpoint is a dict of tensors, numbers, strings, lists and dicts, written to a
temporary file in the same folder and renamed over the old one, so a reader sees either
the old checkpoint or the new one, never half of one. Loading uses
``torch.load(weights_only=True)``, which refuses anything but those plain types.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch


def save_checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically (temporary file, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_checkpoint(path: Path) -> dict[str, Any]:
    """Read a checkpoint written by ``save_checkpoint``; tensors are loaded on the CPU."""
    payload = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(payload, dict):
        raise ValueError(f"{path}: not a memrnn checkpoint")
    return payload
