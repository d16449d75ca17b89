"""The snippets of code that the README and the docs show, for the tests that keep their
commands working (``tests/test_benchmarks.py``, ``tests/cli/test_documented_commands.py``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def snippets(text: str) -> list[str]:
    """A Markdown text's inline code, its whitespace collapsed (a span may wrap over
    lines), then each line of its fenced blocks, stripped."""
    found = [" ".join(span.split()) for span in re.findall(r"(?<!`)`([^`]+)`(?!`)", text)]
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced:
            found.append(line.strip())
    return found


def page_snippets() -> Iterator[tuple[str, str]]:
    """(page, snippet) for the README and every page of the docs' sources."""
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        if "_build" not in page.parts:
            for snippet in snippets(page.read_text()):
                yield str(page.relative_to(ROOT)), snippet
