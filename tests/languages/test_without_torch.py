"""The languages, and the layers below them, import without torch: a subprocess in which
importing torch fails imports every module of memrnn.languages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import memrnn

BLOCK_TORCH = """
import importlib
import importlib.abc
import pkgutil
import sys


class NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError(f"{name} is blocked: the languages must not need torch")
        return None


sys.meta_path.insert(0, NoTorch())
try:
    import torch  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("torch imported despite the block")

import memrnn.errors, memrnn.io, memrnn.validation  # noqa: E401
import memrnn.languages

names = [
    info.name
    for info in pkgutil.walk_packages(memrnn.languages.__path__, "memrnn.languages.")
]
for name in names:
    importlib.import_module(name)
assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules)
print("\\n".join(names))
"""


def test_the_languages_import_without_torch() -> None:
    src = str(Path(memrnn.__file__).parent.parent)
    path = os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", BLOCK_TORCH],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    imported = set(result.stdout.split())
    expected = {
        "memrnn.languages.dyck",
        "memrnn.languages.dyck.dfa",
        "memrnn.languages.dyck.splits",
        "memrnn.languages.grammars",
        "memrnn.languages.itg",
        "memrnn.languages.automata",
        "memrnn.languages.lr1",
        "memrnn.languages.pcfg",
        "memrnn.languages.recognisers",
    }
    assert expected <= imported
