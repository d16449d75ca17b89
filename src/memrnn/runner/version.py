"""The code version recorded with every result."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

from memrnn import __version__


@cache
def code_version() -> str:
    """``memrnn X.Y.Z`` plus the git commit (and ``-dirty``) when run from a checkout."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"memrnn {__version__}"
    return f"memrnn {__version__} git {commit}{'-dirty' if dirty else ''}"
