"""The runner's processes keep freed memory for reuse where glibc lets them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memrnn.runner.allocator import keep_freed_memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_glibc_takes_the_settings() -> None:
    code = "from memrnn.runner.allocator import keep_freed_memory as k; print(k())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_elsewhere_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert keep_freed_memory() is False
