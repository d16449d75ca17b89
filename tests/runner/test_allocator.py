"""The runner's processes, and the commands that train in their own, keep freed memory for
reuse where glibc lets them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memrnn.cli import main
from memrnn.runner import allocator
from memrnn.runner.allocator import keep_freed_memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_glibc_takes_the_settings() -> None:
    code = "from memrnn.runner.allocator import keep_freed_memory as k; print(k())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_elsewhere_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert keep_freed_memory() is False


@pytest.mark.parametrize("command", ["train", "fit"])
def test_the_commands_that_train_here_keep_freed_memory(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: calls.append(True) or True)
    if command == "train":
        args = ["train", "trask2016", "--profile", "smoke", "--quiet", "--set", "steps=2"]
    else:
        (tmp_path / "pairs.tsv").write_text("a b\tb a\nb\tb\n")
        args = ["fit", str(tmp_path / "pairs.tsv"), "--steps", "2", "--quiet",
                "--option", "hidden_size=4", "--option", "embedding=2",
                "--option", "memory_width=2"]  # fmt: skip
    assert main([*args, "--out", str(tmp_path / "out")]) == 0
    assert calls == [True]
