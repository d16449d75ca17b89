"""Checkpoints that survive a crash mid-write and never unpickle arbitrary objects.

A checkpoint is a dict of tensors, numbers, strings, lists and dicts, written to a
temporary file in the same folder and renamed over the old one, so a reader sees either
the old checkpoint or the new one, never half of one. Loading uses
``torch.load(weights_only=True)``, which refuses anything but those plain types.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from memrnn.io import write_atomic


def save_checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically (temporary file, fsync, rename)."""
    write_atomic(path, lambda f: torch.save(payload, f))


def load_checkpoint(path: Path) -> dict[str, Any]:
    """Read a checkpoint written by ``save_checkpoint``; tensors are loaded on the CPU."""
    payload = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(payload, dict):
        raise ValueError(f"{path}: not a memrnn checkpoint")
    return payload
