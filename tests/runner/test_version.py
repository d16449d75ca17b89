"""The code version recorded with each run."""

from __future__ import annotations

import subprocess

from memrnn import __version__
from memrnn.runner import version


def test_names_the_commit_in_a_checkout() -> None:
    head = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    version.code_version.cache_clear()
    assert version.code_version().startswith(f"memrnn {__version__} git {head}")


def test_falls_back_to_the_package_version_without_git(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def no_git(*args: str) -> str:
        raise FileNotFoundError("git")

    monkeypatch.setattr(version, "_git", no_git)
    version.code_version.cache_clear()
    try:
        assert version.code_version() == f"memrnn {__version__}"
    finally:
        version.code_version.cache_clear()
