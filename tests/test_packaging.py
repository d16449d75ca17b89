"""The package as installed: one version, the licence, the typing marker."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

import memrnn

tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_written_once_and_read_by_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "memrnn.__version__"}


def test_the_version_is_the_installed_metadata_version() -> None:
    try:
        installed = metadata.version("memrnn")
    except metadata.PackageNotFoundError:
        pytest.skip("memrnn is not installed (run from a source tree)")
    assert memrnn.__version__ == installed


def test_the_licence_is_mit_and_shipped() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 The memrnn developers" in text


def test_the_package_is_marked_typed() -> None:
    assert (Path(memrnn.__file__).parent / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in data["package-data"]["memrnn"]


def test_the_changelog_has_an_entry_for_this_version() -> None:
    assert f"## [{memrnn.__version__}]" in (ROOT / "CHANGELOG.md").read_text()
