"""One process at a time in an output folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memrnn.errors import UserError
from memrnn.runner.lock import LOCK_NAME, folder_lock

_HOLD = """
import sys, time
from pathlib import Path
from memrnn.runner.lock import folder_lock
with folder_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(600)
"""


def test_a_second_holder_is_refused_with_the_first_ones_pid(tmp_path: Path) -> None:
    with folder_lock(tmp_path):
        with pytest.raises(UserError, match=f"another memrnn process \\(pid {os.getpid()}\\)"):
            with folder_lock(tmp_path):
                pass
    with folder_lock(tmp_path):  # released at the end of the block
        pass


def test_the_lock_of_a_killed_process_is_released(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(UserError, match=f"pid {holder.pid}"):
            with folder_lock(tmp_path):
                pass
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    deadline = time.monotonic() + 10
    while True:  # the kernel drops the lock with the process; no stale file blocks
        try:
            with folder_lock(tmp_path):
                break
        except UserError:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert (tmp_path / LOCK_NAME).exists()
