"""Every ``memrnn`` command that the README and the docs give is one the command line
takes: it parses, its experiments exist, and ``memrnn train``'s run and ``--set``
settings make a config the experiment accepts (``planned_run``, nothing trained)."""

from __future__ import annotations

import shlex
from contextlib import nullcontext

import pytest

from memrnn.cli import build_parser
from memrnn.cli.commands import planned_run
from memrnn.errors import UserError
from memrnn.experiments.grid import other_seeds
from memrnn.experiments.registry import get_experiment
from tests.documented import page_snippets, snippets


def _documented() -> list[tuple[str, list[str]]]:
    """(page, arguments after ``memrnn``) of every documented command; templates with a
    ``...`` standing for what the reader fills in are left out."""
    commands = []
    for page, snippet in page_snippets():
        if snippet.startswith("memrnn "):
            words = shlex.split(snippet, comments=True)[1:]
            if "..." not in words:
                commands.append((page, words))
    return commands


COMMANDS = _documented()


def test_the_pages_give_commands_of_each_kind() -> None:
    kinds = {words[0] for _, words in COMMANDS if words}
    assert {"list", "train", "reproduce", "report"} <= kinds, kinds
    assert len(COMMANDS) >= 20


def test_fenced_blocks_and_wrapped_inline_code_are_read() -> None:
    text = (
        "Run `memrnn train x\n--set lr=0.1` or:\n\n```bash\nmemrnn report  # r\n```\nmemrnn is.\n"
    )
    assert snippets(text) == ["memrnn train x --set lr=0.1", "memrnn report  # r"]


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
