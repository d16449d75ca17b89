"""The command line, run as a user would run it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memrnn import __version__
from memrnn.cli import main


def test_demo_prints_figure_1a(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "NeuralStack" in out and "NeuralQueue" in out
    stack, queue = out.split("NeuralQueue")
    assert "2.80   (0.30, 0.00, 0.90)" in stack
    assert "2.70   (0.00, 0.30, 0.90)" in queue


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: memrnn" in capsys.readouterr().out


def test_console_script_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memrnn.cli", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == f"memrnn {__version__}"


def test_unknown_command_is_one_clear_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memrnn.cli", "fly"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "invalid choice: 'fly'" in done.stderr
    assert "Traceback" not in done.stderr
