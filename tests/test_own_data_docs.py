"""The README's own-data section runs verbatim, as a reader would run it from a clone:
its commands train, score and decode what it says, and ``load_model`` on the folder alone
gives back the very model the command trained; the own-data page's Python runs too."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from memrnn.cli import main
from memrnn.cli.selection import DEFAULT_MODELS
from tests.cli.test_own_data import saved_models
from tests.test_docs import DOCS, README, ROOT, fenced_blocks, section


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder holding the example data where a clone holds it, as the working folder;
    one torch thread, as the README's figures were taken."""
    shutil.copytree(ROOT / "examples" / "data", tmp_path / "examples" / "data")
    monkeypatch.chdir(tmp_path)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield tmp_path
    torch.set_num_threads(threads)


def _printed(code: str, source: str) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(code, source, "exec"), {})
    return printed.getvalue()


@pytest.mark.usefixtures("clone")
def test_the_readme_own_data_section_runs_as_it_says(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = section(README.read_text(), "Your own data")
    (commands,) = fenced_blocks(text, "bash")
    (code,) = fenced_blocks(text, "python")
    trained = saved_models(monkeypatch)
    outputs = []
    for line in commands.splitlines():
        words = shlex.split(line, comments=True)
        assert words[0] == "memrnn"
        assert main([*words[1:], *(["--quiet"] if words[1] == "fit" else [])]) == 0
        outputs.append(capsys.readouterr().out)
    score = re.search(r"sequence_accuracy +([0-9.]+)", outputs[1])
    assert score is not None and float(score.group(1)) >= 0.95  # the README: 1.0
    words = Path("examples/data/words.txt").read_text().split()
    assert outputs[2].split() == [w[::-1] for w in words]

    promised = re.search(r"which prints `(.*?)`", text)
    assert promised is not None
    assert _printed(code, str(README)).strip() == promised.group(1)

    from memrnn.models import load_model

    (model,) = trained
    ids = torch.tensor([[16, 0, 1, 2, 17, 10, 9, 8, 18]])  # <s> a b c ||| c b a </s>
    loaded = load_model("run/")  # the folder alone
    assert torch.equal(loaded.model(ids), model.eval()(ids))


@pytest.mark.usefixtures("clone")
def test_the_own_data_pages_python_runs() -> None:
    page = DOCS / "own-data.md"
    runner, loop = fenced_blocks(page.read_text(), "python")
    assert "sequence_accuracy" in _printed(loop, str(page))
    namespace: dict[str, Any] = {}
    short = runner.replace('tokens="chars")', 'tokens="chars", steps=20, restarts=1, quiet=True)')
    assert short != runner
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(short, str(page), "exec"), namespace)
    assert namespace["saved"].name in DEFAULT_MODELS  # the runner's path, shortened


def test_the_readme_says_how_memrnn_gets_on_the_path() -> None:
    install = section(README.read_text(), "Install")
    assert "make install" in install and ". .venv/bin/activate" in install
    assert "\ninstall: $(STAMP)\n" in (ROOT / "Makefile").read_text()
    # the environment the tests run in is the one the README activates: its `memrnn`
    # stands beside its Python
    assert (Path(sys.executable).parent / "memrnn").exists()
