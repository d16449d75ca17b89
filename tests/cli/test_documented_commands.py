"""Every ``memrnn`` command that the README and the docs give is one the command line
takes: it parses, its experiments exist, and ``memrnn train``'s run and ``--set``
settings make a config the experiment accepts (``planned_run``, nothing trained)."""

from __future__ import annotations

import re
import shlex
from contextlib import nullcontext
from pathlib import Path

import pytest

from memrnn.cli import build_parser
from memrnn.cli.commands import planned_run
from memrnn.errors import UserError
from memrnn.experiments.grid import other_seeds
from memrnn.experiments.registry import get_experiment

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]


def _commands_on(page: Path) -> list[str]:
    """The ``memrnn`` commands of a page: inline code (which may wrap over lines) and the
    lines of its fenced blocks, without their comments."""
    text = page.read_text()
    found = []
    for span in re.findall(r"(?<!`)`([^`]+)`(?!`)", text):
        found.append(" ".join(span.split()))
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced:
            found.append(line.strip())
    return [command for command in found if command.startswith("memrnn ")]


def _documented() -> list[tuple[str, list[str]]]:
    """(page, arguments after ``memrnn``) of every documented command; templates with a
    ``...`` standing for what the reader fills in are left out."""
    commands = []
    for page in PAGES:
        if "_build" in page.parts:
            continue
        for command in _commands_on(page):
            words = shlex.split(command, comments=True)[1:]
            if "..." not in words:
                commands.append((str(page.relative_to(ROOT)), words))
    return commands


COMMANDS = _documented()


def test_the_pages_give_commands_of_each_kind() -> None:
    kinds = {words[0] for _, words in COMMANDS if words}
    assert {"list", "train", "reproduce", "report"} <= kinds, kinds
    assert len(COMMANDS) >= 20


def test_fenced_blocks_and_wrapped_inline_code_are_read(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Run `memrnn train trask2016\n--set lr=0.1` or:\n\n```bash\n"
        "memrnn report --out r/   # the report\nls\n```\nmemrnn is a library.\n"
    )
    assert _commands_on(page) == [
        "memrnn train trask2016 --set lr=0.1",
        "memrnn report --out r/   # the report",
    ]


@pytest.mark.parametrize(("page", "words"), COMMANDS, ids=[" ".join(w) for _, w in COMMANDS])
def test_a_documented_command_is_one_the_command_line_takes(
    page: str, words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        args = build_parser().parse_args(words)
    except SystemExit:
        pytest.fail(f"{page}: memrnn {shlex.join(words)}: {capsys.readouterr().err.strip()}")
    named = getattr(args, "experiments", None) or [getattr(args, "experiment", None)]
    with other_seeds(args.seeds) if getattr(args, "seeds", None) else nullcontext():
        try:
            for name in filter(None, named):
                get_experiment(name)
            if args.command == "train":
                planned_run(args)
        except UserError as error:
            pytest.fail(f"{page}: memrnn {shlex.join(words)}: {error}")
