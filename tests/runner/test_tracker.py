"""A killed resource tracker: the new one hears of the live semaphores, so no traceback."""

import subprocess
import sys

import pytest

SCRIPT = """
import multiprocessing, os, signal, sys, time
from multiprocessing import resource_tracker
if sys.argv[1] == "remember":
    from memrnn.runner.tracker import remember_registrations
    remember_registrations()
locks = [multiprocessing.get_context("spawn").Lock() for _ in range(3)]
os.kill(resource_tracker._resource_tracker._pid, signal.SIGKILL)
time.sleep(0.3)
del locks
"""


@pytest.mark.skipif(sys.platform == "win32", reason="no resource tracker on Windows")
@pytest.mark.parametrize("mode", ["plain", "remember"])
def test_a_killed_tracker_prints_no_traceback(mode: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    if mode == "plain":  # what Python does alone: the case is real
        assert "KeyError" in done.stderr
    else:
        assert "Traceback" not in done.stderr, done.stderr
        assert "told of the 3 semaphores" in done.stderr
