"""An experiment installed as a package would install it: a module and a distribution
declaring it under the entry point group ``memrnn.experiments``, in a folder put on the
PYTHONPATH of the ``memrnn`` processes a test starts (their pool workers inherit it)."""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def plugin_environment(folder: Path, module: str, source: str, entry: str) -> dict[str, str]:
    """The environment of a process that has the module ``module`` (text ``source``)
    installed, declaring the experiment ``entry`` ("name = module:Class")."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{module}.py").write_text(source)
    info = folder / f"{module}-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[memrnn.experiments]\n{entry}\n")
    path = [str(folder), str(REPOSITORY), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
