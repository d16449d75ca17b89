"""Atomic writes, arrays read back without pickle, and the load-or-make cache: made once,
read afterwards, and refused with the file's name when it disagrees with the request or is
damaged in any way."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memrnn
from memrnn.errors import UserError
from memrnn.io import (
    STALE_AFTER_SECONDS,
    load_arrays,
    load_or_make,
    remove_stale_temporaries,
    save_arrays,
    write_atomic,
)

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


def _member_data(path: Path, member: str) -> tuple[int, int]:
    """Where the compressed bytes of ``member`` lie in the zip file ``path``: (start, size)."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    header = path.read_bytes()[info.header_offset : info.header_offset + 30]
    name_size, extra_size = (
        int.from_bytes(header[26:28], "little"),
        int.from_bytes(header[28:30], "little"),
    )
    return info.header_offset + 30 + name_size + extra_size, info.compress_size


def test_a_zero_byte_file_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "squares.npz"
    path.write_bytes(b"")
    with pytest.raises(UserError, match=r"squares\.npz: cannot read the squares \(EOFError"):
        cached(path)


def test_a_folder_in_place_of_the_file_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "squares.npz"
    path.mkdir()
    with pytest.raises(UserError, match=r"squares\.npz: cannot read the squares"):
        cached(path)


@pytest.mark.parametrize("member", ["values.npy", "meta.npy"])
def test_a_garbled_member_is_an_error_naming_the_file(tmp_path: Path, member: str) -> None:
    path = tmp_path / "squares.npz"
    save_arrays(path, META, squares(5))
    start, size = _member_data(path, member)
    data = bytearray(path.read_bytes())
    for i in range(start + size // 4, start + size - size // 4):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(UserError, match=r"squares\.npz: cannot read the squares \(\w+"):
        cached(path)


def test_meta_that_is_not_an_object_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "squares.npz"
    np.savez(path, meta=np.array(json.dumps([1, 2])), values=np.arange(5))
    with pytest.raises(UserError, match=r"squares\.npz: cannot read the squares .*\[1, 2\]"):
        cached(path)


@settings(max_examples=400)
@given(st.data())
def test_any_damage_reads_the_same_squares_or_names_the_file(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "squares.npz"
        save_arrays(path, META, squares(200))
        good = bytearray(path.read_bytes())
        damage = data.draw(st.sampled_from(["flip", "truncate", "overwrite"]))
        if damage == "truncate":
            damaged = good[: data.draw(st.integers(0, len(good) - 1))]
        else:
            damaged = bytearray(good)
            for i in data.draw(st.lists(st.integers(0, len(good) - 1), min_size=1, max_size=8)):
                damaged[i] = (
                    damaged[i] ^ 0xFF if damage == "flip" else data.draw(st.integers(0, 255))
                )
        path.write_bytes(bytes(damaged))
        try:
            read = cached(path, n=200)
        except UserError as exc:
            assert str(exc).startswith(f"{path}: ")
        else:  # untouched bytes, or ones zip does not check (times, comments)
            assert read["values"].tolist() == squares(200)["values"].tolist()


_SRC = str(Path(memrnn.__file__).parents[1])


def _writer(path: Path, code: str) -> subprocess.Popen[bytes]:
    """A process that calls write_atomic on ``path`` with ``write``, defined by ``code``."""
    script = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from memrnn.io import write_atomic\n"
        f"{code}\n"
        f"write_atomic(Path({str(path)!r}), write)\n"
    )
    env = {**os.environ, "PYTHONPATH": _SRC}
    return subprocess.Popen([sys.executable, "-c", script], env=env)


def _interrupted(path: Path) -> Path:
    """The temporary of a write of ``path`` whose process exited mid-write."""
    before = set(path.parent.glob(f".{path.name}.*.tmp"))
    _writer(path, "def write(f):\n    f.write(b'half')\n    f.flush()\n    os._exit(0)").wait()
    (left,) = set(path.parent.glob(f".{path.name}.*.tmp")) - before
    return left


def _temporaries(folder: Path) -> list[Path]:
    return sorted(folder.glob("**/.*.tmp"))


def test_the_temporary_of_a_dead_writer_is_removed_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    dead = [_interrupted(tmp_path / "results.json"), _interrupted(tmp_path / "sub" / "c.pt")]
    assert all(f".{os.getpid()}-" not in p.name for p in dead)  # the writer's id, not ours
    kept = [".hidden", ".results.json.tmp", "notes.tmp", "results.json", ".x.123-zz.abcdefgh.tmp"]
    for name in kept:
        (tmp_path / name).write_text("keep")
    assert remove_stale_temporaries(tmp_path, recursive=False) == dead[:1]
    assert remove_stale_temporaries(tmp_path) == dead[1:]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, "sub"])
    assert remove_stale_temporaries(tmp_path / "missing") == []


def test_the_temporary_of_a_running_writer_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "file.txt"

    def write(f: BinaryIO) -> None:
        f.write(b"new")
        assert remove_stale_temporaries(tmp_path) == []
        assert len(_temporaries(tmp_path)) == 1

    write_atomic(path, write)
    assert path.read_bytes() == b"new" and _temporaries(tmp_path) == []


def test_a_temporary_whose_writer_is_unknown_is_removed_only_after_a_day(tmp_path: Path) -> None:
    old_style = tmp_path / ".file.txt.abcd_123.tmp"  # written before temporaries named a writer
    other_host = tmp_path / f".file.txt.{os.getpid()}-00000000.abcd_123.tmp"
    for path in (old_style, other_host):
        path.write_text("half")
    assert remove_stale_temporaries(tmp_path) == []
    day_ago = time.time() - STALE_AFTER_SECONDS - 60
    os.utime(old_style, (day_ago, day_ago))
    assert remove_stale_temporaries(tmp_path) == [old_style]
    os.utime(other_host, (day_ago, day_ago))
    assert remove_stale_temporaries(tmp_path) == [other_host]


def test_writing_removes_the_dead_temporaries_of_its_target_only(tmp_path: Path) -> None:
    mine, other = _interrupted(tmp_path / "a.txt"), _interrupted(tmp_path / "b.txt")
    write_atomic(tmp_path / "a.txt", lambda f: f.write(b"a"))
    assert not mine.exists() and other.exists()


def test_a_writer_killed_mid_write_leaves_the_old_file_and_a_removable_temporary(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.bin"
    write_atomic(path, lambda f: f.write(b"old and complete"))
    slow = "def write(f):\n    for _ in range(10_000):\n        f.write(bytes(1 << 16))\n"
    writer = _writer(path, slow + "        time.sleep(0.01)")
    deadline = time.monotonic() + 60
    while not any(p.stat().st_size > 1 << 20 for p in _temporaries(tmp_path)):
        assert time.monotonic() < deadline and writer.poll() is None
        time.sleep(0.05)
    assert remove_stale_temporaries(tmp_path) == []  # it still writes
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    (left,) = _temporaries(tmp_path)
    assert path.read_bytes() == b"old and complete"
    assert remove_stale_temporaries(tmp_path) == [left]
    assert [p.name for p in tmp_path.iterdir()] == ["big.bin"]


def test_looking_through_thousands_of_files_asks_each_writer_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(3000):
        (tmp_path / f"run{i}.json").write_text("{}")
    dead = _interrupted(tmp_path / "results.json")
    for i in range(500):  # one writer, many temporaries
        (tmp_path / dead.name.replace(".json.", f".json{i}.")).write_text("half")
    asked: list[int] = []
    kill = os.kill
    monkeypatch.setattr(os, "kill", lambda pid, sig: asked.append(pid) or kill(pid, sig))
    started = time.perf_counter()
    assert len(remove_stale_temporaries(tmp_path)) == 501
    assert time.perf_counter() - started < 5 and len(asked) == 1
    assert len(list(tmp_path.iterdir())) == 3000


def test_a_subfolder_that_cannot_be_read_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locked").mkdir()
    dead = _interrupted(tmp_path / "results.json")
    scandir = os.scandir

    def refuse_locked(path: Any) -> Any:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse_locked)
    assert remove_stale_temporaries(tmp_path) == [dead]
    with pytest.raises(PermissionError):
        remove_stale_temporaries(tmp_path / "locked")
    (tmp_path / "results.json").write_text("[]")
    with pytest.raises(ValueError, match=r"folder: .*results\.json is not a folder"):
        remove_stale_temporaries(tmp_path / "results.json")
