"""What a command imports before it answers: help and mistakes in the arguments come
without torch (a second or more to import), and listing the experiments without
matplotlib, which only the report's figures need."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _imported(code: str, *modules: str) -> list[str]:
    """Which of ``modules`` a fresh interpreter has imported after running ``code`` (said
    on the last line of its stderr, after whatever the code printed)."""
    found = f"' '.join(m for m in {modules!r} if m in sys.modules)"
    probe = f"{code}\nimport sys\nprint({found}, file=sys.stderr)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    return done.stderr.splitlines()[-1].split()


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["reproduce", "--help"], ["fit", "--help"], ["--version"], ["train"], ["fly"]],
)
def test_help_and_mistakes_in_the_arguments_answer_without_torch(argv: list[str]) -> None:
    code = (
        "from memrnn.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit as stop:\n    assert stop.code in (0, 2)"
    )
    assert _imported(code, "torch") == []


def test_a_command_imports_its_handler_when_it_runs() -> None:
    code = "from memrnn.cli import main\nassert main(['list', '--names']) == 0"
    assert _imported(code, "torch", "memrnn.cli.commands") == ["torch", "memrnn.cli.commands"]


def test_the_experiments_and_their_runs_are_listed_without_matplotlib() -> None:
    code = (
        "from memrnn.experiments.registry import experiment_names, get_experiment\n"
        "for name in experiment_names():\n"
        "    experiment = get_experiment(name)\n"
        "    experiment.runs('smoke'), experiment.runs('quick')"
    )
    assert _imported(code, "matplotlib", "memrnn.experiments.matrix") == [
        "memrnn.experiments.matrix"
    ]
