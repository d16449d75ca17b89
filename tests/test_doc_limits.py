"""The documentation stays a user's manual a newcomer reads in ten minutes: word budgets
for the README and the pages, a short Install section, and no sentence about how the
project got here (past runs, machines of other days, what was tried and dropped): git
keeps the history, the pages say what is true now."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
TOTAL_WORDS = 20_000  # README and every page together
PAGE_WORDS = 3_500
INSTALL_WORDS = 160

# Phrases that narrate development rather than describe the library.
HISTORY = (
    r"\bsessions?\b",
    r"\b(that|other|slower|faster|good|better|bad) days?\b",
    r"\btried and\b",
    r"\bnot kept\b",
    r"\bwas dropped\b",
    r"\bcommit [0-9a-f]{7,}\b",
    r"\b(an?|the) (earlier|later|previous|older|first) (run|version|measurement|machine|build)s?\b",
    r"\bused to\b",
    r"\bno longer\b",
    r"\bpreviously\b",
    r"\bformerly\b",
    r"\bbefore (the|this) change\b",
    r"\b(fell|rose|went|dropped) from\b",
    r"\bat first\b",
    r"\bthe old (code|path|step|version)\b",
)


def pages() -> list[Path]:
    """The README and the documentation's own sources (not what the build generates)."""
    generated = {"_build", "gallery", "tutorial", "sg_execution_times.rst"}
    found = [p for p in DOCS.rglob("*") if p.suffix in (".md", ".rst")]
    return [README, *sorted(p for p in found if not generated & set(p.relative_to(DOCS).parts))]


def words(text: str) -> int:
    """Words as ``wc -w`` counts them."""
    return len(text.split())


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_readme_and_docs_fit_the_word_budget() -> None:
    counts = {name(p): words(p.read_text()) for p in pages()}
    assert sum(counts.values()) <= TOTAL_WORDS, sorted(counts.items(), key=lambda kv: -kv[1])


@pytest.mark.parametrize("page", pages(), ids=name)
def test_no_page_is_over_its_budget(page: Path) -> None:
    assert words(page.read_text()) <= PAGE_WORDS


def test_readme_install_section_is_short() -> None:
    match = re.search(r"^## Install\n(.*?)(?=^## |\Z)", README.read_text(), re.M | re.S)
    assert match is not None, "README: no Install section"
    assert words(match.group(1)) <= INSTALL_WORDS


@pytest.mark.parametrize("page", pages(), ids=name)
def test_no_page_narrates_development_history(page: Path) -> None:
    text = " ".join(page.read_text().split())  # a phrase may wrap over lines
    found = [m.group(0) for p in HISTORY for m in re.finditer(p, text, re.IGNORECASE)]
    assert not found, f"{name(page)}: {found}"


def test_the_history_patterns_catch_history() -> None:
    narrated = (
        "On the Intel Xeon of a later session it took 5 min.",
        "That machine was slower that day.",
        "Tried and not kept: oneDNN products.",
        "The step fell from 7.5 to 6 ms.",
        "commit 8b207c4 gave the same numbers",
    )
    for sentence in narrated:
        assert any(re.search(p, sentence, re.IGNORECASE) for p in HISTORY), sentence
    assert not any(re.search(p, "The step takes 6 ms on a 2-core CPU.", re.I) for p in HISTORY)


def test_changelog_keeps_one_line_an_entry() -> None:
    """Keep a Changelog's form: versions, their kinds of change, and one line a change."""
    lines = (ROOT / "CHANGELOG.md").read_text().splitlines()
    assert lines[0] == "# Changelog"
    versions = [line for line in lines if line.startswith("## ")]
    assert versions and versions[0] == "## [Unreleased]"
    for line in versions[1:]:
        assert re.fullmatch(r"## \[\d+\.\d+\.\d+\] - \d{4}-\d\d-\d\d", line), line
    kinds = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    body = lines[lines.index(versions[0]) :]
    for line in body:
        if line.startswith("### "):
            assert line[4:] in kinds, line
        elif line and not line.startswith("## "):
            assert line.startswith("- "), f"CHANGELOG: a line that is not one entry: {line!r}"
