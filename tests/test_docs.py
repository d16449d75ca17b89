"""The documentation's promises, checked without building it (``make docs`` builds it):
the README's and the docs' quick starts run and generalise as they say, the tour's and the
extension page's examples run, every relative link leads to a file, the API reference
covers every public package, every experiment has a page, and every gallery script is
one that sphinx-gallery runs."""

from __future__ import annotations

import ast
import contextlib
import io
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from memrnn.experiments.registry import experiment_names
from memrnn.tasks import task_names

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
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


def fenced_blocks(text: str, language: str) -> list[str]:
    """The ```language fenced blocks of a Markdown text, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def section(text: str, heading: str) -> str:
    """The body of the Markdown section ``## heading``, up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match is not None, f"no section {heading!r}"
    return match.group(1)


def test_fenced_blocks_and_sections_are_extracted() -> None:
    text = "# T\n\n## A\n\n```python\nx = 1\n```\n\n```text\n1\n```\n## B\n\nb\n"
    assert fenced_blocks(section(text, "A"), "python") == ["x = 1\n"]
    assert fenced_blocks(section(text, "A"), "text") == ["1\n"]
    assert section(text, "B") == "\nb\n"


@pytest.fixture
def one_thread() -> Iterator[None]:
    """One torch thread, as one CPU core runs the quick start; a shared machine's other
    work then slows it in proportion rather than many times over."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def run_promising(code: str, promised: str, source: str) -> dict[str, object]:
    """Run ``code``; what it prints must be ``promised``, any percentage aside."""
    namespace: dict[str, object] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, source, "exec"), namespace)
    pattern = re.escape(promised.strip()).replace("100%", r"\d+%")
    assert re.fullmatch(pattern, printed.getvalue().strip())
    return namespace


@pytest.mark.usefixtures("one_thread")
def test_quick_start_trains_a_stack_lstm_that_generalises() -> None:
    page = DOCS / "quickstart.rst"
    (code,) = code_blocks(page, "python")
    (promised,) = code_blocks(page, "text")  # what the page says it prints
    score = run_promising(code, promised, str(page))["score"]
    assert isinstance(score, dict)
    # the page promises strings longer than any trained on, reversed without a mistake
    assert score["coarse"] >= 0.9


@pytest.mark.usefixtures("one_thread")
def test_readme_quick_start_trains_a_stack_lstm_that_generalises() -> None:
    quick_start = section(README.read_text(), "Quick start")
    (code,) = fenced_blocks(quick_start, "python")
    (promised,) = fenced_blocks(quick_start, "text")
    namespace = run_promising(code, promised, str(README))
    # its last test is of the longer strings, 13-24 symbols against 1-12 in training
    assert (namespace["low"], namespace["high"]) == (13, 24)
    score = namespace["score"]
    assert isinstance(score, dict)
    assert score["coarse"] >= 0.9


@pytest.mark.usefixtures("one_thread")
def test_readme_quick_start_without_the_stack_does_not_generalise() -> None:
    (code,) = fenced_blocks(section(README.read_text(), "Quick start"), "python")
    # the swap the README describes after the quick start
    swapped = code.replace('"stack_lstm"', '"deep_lstm"').replace(", memory_width=16", "")
    assert swapped.count("deep_lstm") == 1 and "memory_width" not in swapped
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(swapped, str(README), "exec"), namespace)
    trained, longer = printed.getvalue().splitlines()
    # "half the strings of the training lengths and none of the longer ones"
    assert trained.startswith("1-12 symbols: ") and longer.startswith("13-24 symbols: 0% ")
    score = namespace["score"]
    assert isinstance(score, dict)
    assert score["coarse"] < 0.05


def test_readme_opens_with_the_make_commands_the_project_runs() -> None:
    commands = [line for line in README.read_text().splitlines() if line.startswith("    make")]
    assert commands[:2] == [
        "    make test        # creates .venv, installs, runs the test suite",
        "    make reproduce   # creates .venv, installs, runs the main job and writes the report",
    ]


def test_the_site_opens_with_the_readme() -> None:
    index = (DOCS / "index.md").read_text()
    # its links to docs/... are rewritten to be relative to docs/, so they work in both
    assert re.search(r"^```\{include\} \.\./README\.md\n:relative-docs: docs/$", index, re.M)


def markdown_pages() -> list[Path]:
    return [README, *sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)]


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_relative_link_leads_to_a_file(page: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#")[0]
        assert (page.parent / path).is_file(), f"{page.name} links to {target}"


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_uses_an_internal_label(page: Path) -> None:
    text = page.read_text()
    for label in (r"\bseed 0\d\d\b", r"\bSPEC \d", r"\bissue \d", r"\bthe issue\b"):
        assert not re.search(label, text, re.IGNORECASE), f"{page.name}: {label}"


def test_the_tours_examples_each_run_on_their_own() -> None:
    page = DOCS / "guide.md"
    blocks = fenced_blocks(page.read_text(), "python")
    assert len(blocks) == 5
    printed = []
    for code in blocks:  # each in a namespace of its own: a reader may copy any one
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(code, str(page), "exec"), {})
        printed.append(out.getvalue())
    assert "tensor([0.8000, 1.5000, 2.8000])" in printed[0]  # as its comment says
    assert printed[1].startswith(f"{len(task_names())} ")  # the count is the registry's
    assert printed[4].rstrip().endswith("True")  # a stream in chunks is the whole


def test_the_extension_pages_task_registers_and_samples() -> None:
    page = DOCS / "extending.md"
    (code,) = fenced_blocks(page.read_text(), "python")
    check = (
        "\nfrom memrnn.tasks import make_task, task_names\n"
        "assert 'majority' in task_names()\n"
        "batch = make_task('majority').sample_batch(np.random.default_rng(0), 4, 1, 40)\n"
        "assert batch.inputs.shape[0] == 4\n"
    )
    # a registered task stays registered: a process of its own keeps this one's registry
    subprocess.run([sys.executable, "-c", code + check], check=True, cwd=ROOT)


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
