"""The documentation's promises, checked without building it (``make docs`` builds it):
the quick start's code runs and generalises as its page says, the API reference covers
every public package, every experiment has a page, and every gallery script is one that
sphinx-gallery runs."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

from memrnn.experiments.registry import experiment_names

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
PUBLIC_PACKAGES = (
    "memrnn.structures",
    "memrnn.models",
    "memrnn.tasks",
    "memrnn.languages",
    "memrnn.estimators",
    "memrnn.reservoir",
    "memrnn.training",
    "memrnn.constructions",
    "memrnn.experiments",
)


def code_blocks(page: Path, language: str) -> list[str]:
    """The ``.. code-block:: language`` blocks of an reStructuredText page, dedented."""
    blocks: list[str] = []
    lines = page.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.strip() != f".. code-block:: {language}":
            continue
        body: list[str] = []
        for following in lines[i + 1 :]:
            if following.strip() and not following.startswith("    "):
                break
            body.append(following[4:])
        blocks.append("\n".join(body).strip("\n") + "\n")
    return blocks


def test_code_blocks_are_extracted_dedented(tmp_path: Path) -> None:
    page = tmp_path / "page.rst"
    page.write_text(
        "Title\n=====\n\n.. code-block:: python\n\n    x = 1\n\n    print(x)\n\nText.\n"
    )
    assert code_blocks(page, "python") == ["x = 1\n\nprint(x)\n"]
    assert code_blocks(page, "bash") == []


def test_quick_start_trains_a_stack_lstm_that_generalises() -> None:
    page = DOCS / "quickstart.rst"
    (code,) = code_blocks(page, "python")
    (promised,) = code_blocks(page, "text")  # what the page says it prints
    namespace: dict[str, object] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(page), "exec"), namespace)
    score = namespace["score"]
    assert isinstance(score, dict)
    # the page promises strings longer than any trained on, reversed without a mistake
    assert score["coarse"] >= 0.9
    pattern = re.escape(promised.strip()).replace("100%", r"\d+%")
    assert re.fullmatch(pattern, printed.getvalue().strip())


def automodules() -> set[str]:
    found: set[str] = set()
    for page in (DOCS / "api").glob("*.rst"):
        found.update(re.findall(r"^\.\. automodule:: (\S+)$", page.read_text(), re.MULTILINE))
    return found


@pytest.mark.parametrize("package", PUBLIC_PACKAGES)
def test_api_reference_documents_each_public_package(package: str) -> None:
    assert package in automodules()


def test_api_reference_documents_each_experiment() -> None:
    assert {f"memrnn.experiments.{name}" for name in experiment_names()} <= automodules()


def test_each_experiment_has_a_page_in_the_index() -> None:
    index = (DOCS / "experiments" / "index.rst").read_text()
    for name in experiment_names():
        assert (DOCS / "experiments" / f"{name}.md").is_file(), name
        assert re.search(rf"^   {name}$", index, re.MULTILINE), name


def gallery_scripts() -> list[Path]:
    return sorted(EXAMPLES.glob("*/plot_*.py"))


def test_the_gallery_and_the_tutorial_have_scripts() -> None:
    folders = {script.parent.name for script in gallery_scripts()}
    assert folders == {"gallery", "tutorial"}
    for folder in folders:
        assert (EXAMPLES / folder / "README.rst").is_file()


@pytest.mark.parametrize("script", gallery_scripts(), ids=lambda p: p.name)
def test_each_gallery_script_opens_with_a_titled_docstring(script: Path) -> None:
    docstring = ast.get_docstring(ast.parse(script.read_text()), clean=False)
    assert docstring is not None, "sphinx-gallery takes the page's title from the docstring"
    title, underline = docstring.strip("\n").splitlines()[:2]
    assert underline == "=" * len(title), f"{script.name}: the title's underline"
