"""The package's layers: imports point one way, from the top (the command line) down to
the bottom (errors, files, argument checks); no source file outgrows one idea (400 lines,
300 for an experiment's modules)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import memrnn

PACKAGE = Path(memrnn.__file__).parent

# Bottom to top; a module may import from its own layer and the layers before it.
LAYERS: list[set[str]] = [
    {"errors", "io", "validation", "__init__"},
    {"languages"},
    {"tasks"},
    {"structures"},
    {"models", "constructions"},
    {"training"},
    {"estimators", "reservoir"},
    {"experiments"},
    {"runner"},
    {"cli"},
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
LIMIT = 400
EXPERIMENT_LIMIT = 300  # an experiment is declared, not programmed: its modules stay short
KERNELS: set[str] = set()  # hand-written kernels allowed past LIMIT, each saying why in a comment


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _layer(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "memrnn" and len(parts) > 1:
                found.add(parts[1])
    return found


def test_every_top_level_module_has_a_layer() -> None:
    unknown = {_layer(p) for p in _modules()} - set(RANK)
    assert not unknown, f"give these a layer in LAYERS: {sorted(unknown)}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    here = RANK[_layer(path)]
    upward = sorted(m for m in _imports(path) if m in RANK and RANK[m] > here)
    assert not upward, f"{path.relative_to(PACKAGE)} imports from a layer above it: {upward}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_files_stay_small(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    limit = EXPERIMENT_LIMIT if _layer(path) == "experiments" else LIMIT
    if path.relative_to(PACKAGE).as_posix() not in KERNELS:
        assert lines <= limit, f"{path.relative_to(PACKAGE)}: {lines} lines, over {limit}"
