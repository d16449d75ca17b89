"""The scripts of ``benchmarks/`` still import, describe themselves, and accept the
command lines that their docstrings, ``benchmarks/gpu.sh``, the README and the docs give.

The suite never times them (timings are not tests), so nothing else would notice a
benchmark broken by a change to the API it drives, or a documented command whose options
have changed. One child process runs every script as ``python benchmarks/<name>.py``
would, with ``argparse`` stopped right after it parses: ``--help`` must print the whole
docstring, and every documented command line must parse.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import subprocess
import sys

from tests.documented import ROOT, page_snippets

BENCHMARKS = ROOT / "benchmarks"

# Runs each [script, args] of the JSON list on stdin as __main__, its parser stopped once it
# has parsed; prints [exit code ("parsed" once parsed), stdout, stderr] for each as JSON.
_DRIVER = """
import argparse, contextlib, io, json, runpy, sys
folder = sys.argv[1]
sys.path.insert(0, folder)  # the scripts import one another
parse = argparse.ArgumentParser.parse_args

class Parsed(Exception):
    pass

def parse_then_stop(self, args=None, namespace=None):
    parse(self, args, namespace)
    raise Parsed

argparse.ArgumentParser.parse_args = parse_then_stop
results = []
for script, args in json.load(sys.stdin):
    sys.argv = [script, *args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(f"{folder}/{script}", run_name="__main__")
            code = "ran"
        except Parsed:
            code = "parsed"
        except SystemExit as stop:
            code = stop.code
    results.append([code, out.getvalue(), err.getvalue()[-2000:]])
print(json.dumps(results))
"""

# gpu.sh's loop variable, as its first pass sets it
_SHELL_VALUES = {"$hidden": "256"}


def _scripts() -> dict[str, str]:
    """Every benchmark with a command line, by file name, with its module docstring."""
    scripts = {}
    for path in sorted(BENCHMARKS.glob("*.py")):
        source = path.read_text()
        if 'if __name__ == "__main__":' in source:
            scripts[path.name] = ast.get_docstring(ast.parse(source)) or ""
    return scripts


def _command(text: str) -> tuple[str, list[str]] | None:
    """(script, arguments) of the ``python benchmarks/<name>.py ...`` in ``text``."""
    found = re.search(r"python benchmarks/(\w+\.py)(.*)", text)
    if found is None:
        return None
    rest = found.group(2)
    for variable, value in _SHELL_VALUES.items():
        rest = rest.replace(f'"{variable}"', value).replace(variable, value)
    return found.group(1), shlex.split(rest, comments=True)


def _documented_commands() -> list[tuple[str, str, list[str]]]:
    """(where, script, arguments) of every benchmark command that the docstrings, gpu.sh,
    the README and the docs give."""
    commands = []
    shell_like = {f"benchmarks/{name}": doc for name, doc in _scripts().items()}
    shell_like["benchmarks/gpu.sh"] = (BENCHMARKS / "gpu.sh").read_text()
    for where, text in shell_like.items():
        for line in text.replace("\\\n", " ").splitlines():  # continuation lines joined
            if (command := _command(line)) is not None:
                commands.append((where, *command))
    for page, snippet in page_snippets():
        if (command := _command(snippet)) is not None:
            commands.append((page, *command))
    return commands


def _run(runs: list[tuple[str, list[str]]]) -> list[tuple[object, str, str]]:
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(BENCHMARKS)],
        input=json.dumps(runs), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return [tuple(result) for result in json.loads(done.stdout.splitlines()[-1])]


def test_every_benchmark_prints_its_whole_docstring_as_help() -> None:
    scripts = _scripts()
    assert len(scripts) >= 10, sorted(scripts)  # the glob found the folder
    results = _run([(name, ["--help"]) for name in scripts])
    for (name, doc), (code, out, err) in zip(scripts.items(), results, strict=True):
        assert code == 0, f"{name} --help exited with {code}: {err}"
        assert out.startswith("usage: "), f"{name} --help printed {out[:200]!r}"
        # the usage lines at the docstring's end, as written (argparse does not rewrap)
        assert doc.strip().splitlines()[-1].strip() in out, f"{name}: docstring cut short"


def test_every_documented_benchmark_command_parses() -> None:
    commands = _documented_commands()
    scripts = _scripts()
    assert len(commands) >= 40, commands  # the docstrings' and the pages' commands were found
    wheres = {where for where, _, _ in commands}
    assert {"benchmarks/gpu.sh", "docs/speed.md", "benchmarks/quick_step.py"} <= wheres
    unknown = [(where, script) for where, script, _ in commands if script not in scripts]
    assert not unknown, f"commands name benchmarks that do not exist: {unknown}"
    results = _run([(script, args) for _, script, args in commands])
    failed = [
        f"{where}: python benchmarks/{script} {shlex.join(args)}\n{err.strip()}"
        for (where, script, args), (code, _, err) in zip(commands, results, strict=True)
        if code != "parsed"
    ]
    assert not failed, "\n\n".join(failed)


def test_the_command_finder_reads_wrapped_and_continued_commands() -> None:
    assert _command("  python benchmarks/x.py --a 1  # a comment") == ("x.py", ["--a", "1"])
    assert _command('python benchmarks/y.py --hidden "$hidden"') == ("y.py", ["--hidden", "256"])
    assert _command("no command here") is None
