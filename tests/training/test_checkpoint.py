"""Checkpoints are written atomically, loaded without unpickling arbitrary objects, and
moved aside, never lost, when they cannot be used."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from memrnn.errors import UserError
from memrnn.training.checkpoint import (
    DamagedCheckpointError,
    DamagedCheckpointWarning,
    load_checkpoint,
    save_checkpoint,
    set_aside,
)


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


def test_one_flipped_bit_is_found(tmp_path: Path) -> None:
    path = tmp_path / "c.pt"
    weights = torch.linspace(-1, 1, 4096)
    save_checkpoint(path, {"model": {"w": weights}, "step": 3})
    data = bytearray(path.read_bytes())
    at = data.find(weights[2000:2016].numpy().tobytes())  # inside the weights' bytes
    assert at > 0
    data[at] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedCheckpointError, match="its SHA-256 does not match"):
        load_checkpoint(path)


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
    with pytest.raises(DamagedCheckpointError, match=r"evil\.pt: UnpicklingError"):
        load_checkpoint(path)


@pytest.mark.parametrize(
    ("write", "reason"),
    [
        (lambda p: p.write_bytes(b""), "EOFError"),
        (lambda p: p.write_bytes(b"\x80\x02garbled" * 50), "UnpicklingError"),
        (lambda p: p.mkdir(), "IsADirectoryError"),
        (lambda p: torch.save([1, 2, 3], p), "holds a list, not a dict"),
    ],
)
def test_a_checkpoint_that_cannot_be_read_is_named_with_the_reason(
    tmp_path: Path, write: Callable[[Path], object], reason: str
) -> None:
    path = tmp_path / "c.pt"
    write(path)
    with pytest.raises(DamagedCheckpointError, match=rf"c\.pt: {reason}") as caught:
        load_checkpoint(path)
    assert caught.value.path == path and caught.value.reason.startswith(reason)


def test_setting_aside_never_overwrites_an_earlier_damaged_copy(tmp_path: Path) -> None:
    path = tmp_path / "c.pt"
    moved = []
    for content in (b"first", b"second", b"third"):
        path.write_bytes(content)
        with pytest.warns(DamagedCheckpointWarning) as warned:
            moved.append(set_aside(DamagedCheckpointError(path, "garbled")))
        (message,) = [str(w.message) for w in warned]
        assert message == (
            f"{path}: damaged checkpoint (garbled); moved to {moved[-1]}, the run starts over"
        )
    assert [p.name for p in moved] == ["c.pt.damaged", "c.pt.damaged-2", "c.pt.damaged-3"]
    assert [p.read_bytes() for p in moved] == [b"first", b"second", b"third"]
    assert not path.exists()


def test_a_checkpoint_that_cannot_be_moved_aside_is_a_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.pt"
    path.write_bytes(b"")

    def refuse(source: object, target: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "rename", refuse)
    with pytest.raises(UserError, match=r"c\.pt: a damaged checkpoint \(EOFError\) that cannot"):
        set_aside(DamagedCheckpointError(path, "EOFError"))
    assert path.exists()
