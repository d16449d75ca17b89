"""Atomic writes, arrays read back without pickle, and the load-or-make cache: made once,
read afterwards, and refused with the file's name when it disagrees with the request."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pytest

from memrnn.errors import UserError
from memrnn.io import load_arrays, load_or_make, save_arrays, write_atomic

META = {"format": 2, "what": "squares", "n": 5}


def squares(n: int) -> dict[str, np.ndarray]:
    return {"values": np.arange(n) ** 2}


def checked(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    if arrays["values"].min() < 0:
        raise ValueError("values: a square is never negative")
    return arrays


def cached(path: Path, meta: dict[str, object] = META, n: int = 5) -> dict[str, np.ndarray]:
    return load_or_make(
        path, meta, lambda: squares(n), "squares", to_arrays=lambda a: a, from_arrays=checked
    )


def test_write_atomic_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "file.txt"
    write_atomic(path, lambda f: f.write(b"one"))
    write_atomic(path, lambda f: f.write(b"two"))
    assert path.read_bytes() == b"two"
    assert [p.name for p in path.parent.iterdir()] == ["file.txt"]
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask  # not mkstemp's 0600


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "file.txt"
    write_atomic(path, lambda f: f.write(b"old"))

    def fail(f: BinaryIO) -> None:
        f.write(b"half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_atomic(path, fail)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


def test_arrays_round_trip_without_pickle(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    save_arrays(path, {"format": 1, "sizes": (2, 3)}, {"x": np.arange(6).reshape(2, 3)})
    np.load(path, allow_pickle=False)  # no pickles inside
    arrays = load_arrays(path, {"format": 1, "sizes": [2, 3]}, "arrays")  # tuples are lists
    assert sorted(arrays) == ["x"] and arrays["x"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_a_missing_file_is_made_once_and_then_read(tmp_path: Path) -> None:
    path = tmp_path / "data" / "squares.npz"
    made = cached(path)
    assert made["values"].tolist() == [0, 1, 4, 9, 16]
    written = path.stat().st_mtime_ns

    def refuse() -> dict[str, np.ndarray]:
        raise AssertionError("made again instead of read")

    read = load_or_make(path, META, refuse, "squares", to_arrays=lambda a: a, from_arrays=checked)
    assert read["values"].tolist() == made["values"].tolist()
    assert path.stat().st_mtime_ns == written
    assert [p.name for p in path.parent.iterdir()] == ["squares.npz"]


def test_a_file_with_other_parameters_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "squares.npz"
    cached(path)
    with pytest.raises(UserError, match=r"squares\.npz: the file records .*'n': 5.*'n': 6"):
        cached(path, {**META, "n": 6}, n=6)


def test_a_file_in_another_format_is_an_error_naming_both(tmp_path: Path) -> None:
    path = tmp_path / "squares.npz"
    cached(path, {**META, "format": 1})
    with pytest.raises(
        UserError, match=r"squares\.npz: the squares are in format 1, this version reads format 2"
    ):
        cached(path)


def test_an_unreadable_file_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "squares.npz"
    path.write_bytes(b"not a zip file")
    with pytest.raises(UserError, match=r"squares\.npz: cannot read the squares"):
        cached(path)


def test_a_damaged_file_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "squares.npz"
    save_arrays(path, META, {"values": -np.ones(3)})
    with pytest.raises(UserError, match=r"squares\.npz: damaged squares \(values: a square"):
        cached(path)
    save_arrays(path, META, {"other": np.ones(3)})
    with pytest.raises(UserError, match=r"squares\.npz: damaged squares \('values'\)"):
        cached(path)


def test_meta_must_name_its_format(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="meta: expected a 'format' entry"):
        cached(tmp_path / "squares.npz", {"n": 5})
    assert not list(tmp_path.iterdir())
