"""Checkpoints are written atomically and loaded without unpickling arbitrary objects."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import torch

from memrnn.training.checkpoint import load_checkpoint, save_checkpoint


def test_round_trip(tmp_path: Path) -> None:
    payload = {
        "model": {"w": torch.arange(3.0)},
        "step": 7,
        "rng": {"state": 2**100, "name": "PCG64"},
    }
    save_checkpoint(tmp_path / "c.pt", payload)
    loaded = load_checkpoint(tmp_path / "c.pt")
    torch.testing.assert_close(loaded["model"]["w"], torch.arange(3.0))
    assert loaded["step"] == 7 and loaded["rng"] == {"state": 2**100, "name": "PCG64"}


class _Unsaveable:
    def __reduce__(self) -> tuple[object, ...]:
        raise RuntimeError("cannot pickle this")


def test_a_failed_write_keeps_the_old_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "c.pt"
    save_checkpoint(path, {"step": 1})
    with pytest.raises(RuntimeError, match="cannot pickle this"):
        save_checkpoint(path, {"step": 2, "bad": _Unsaveable()})
    assert load_checkpoint(path)["step"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.pt"]  # no temporary left behind


class Payload:
    """Stands for an attacker's object: loading must refuse to construct it."""


def test_loading_refuses_arbitrary_objects(tmp_path: Path) -> None:
    path = tmp_path / "evil.pt"
    torch.save({"x": Payload()}, path)
    with pytest.raises(pickle.UnpicklingError):
        load_checkpoint(path)
