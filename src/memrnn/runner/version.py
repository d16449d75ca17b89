"""The code version recorded with every result."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

from memrnn import __version__


def _git(*args: str) -> str:
    here = Path(__file__).resolve().parent
    done = subprocess.run(
        ["git", "-C", str(here), *args], capture_output=True, text=True, check=True, timeout=10
    )
    return done.stdout.strip()


@cache
def code_version() -> str:
    """``memrnn X.Y.Z`` plus the git commit (and ``-dirty``) when run from a checkout."""
    try:
        commit = _git("rev-parse", "--short=12", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return f"memrnn {__version__}"
    return f"memrnn {__version__} git {commit}{'-dirty' if dirty else ''}"
