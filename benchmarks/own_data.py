"""Own-data battery: pairs files of the kind a user brings, fitted by ``memrnn fit`` as a
user would, scored on sources up to twice as long as any trained on.

``write`` makes the battery: for each task a small fixed training file (``TASK.tsv``,
sources of 1-8 tokens) and a test file (``TASK_test.tsv``, sources of 9-16 tokens), and
``battery.json`` saying each task's tokens and the memory it needs. ``run`` fits every
task with every seed by ``memrnn fit FILE --out DIR --seed S`` (plus ``--tokens`` where the
file needs it, and whatever ``--fit-args`` adds), scores the fitted model on its training
and test files with ``memrnn score``, and prints task x seed: training and test sequence
accuracy, seconds, and the candidate ``fit`` chose. ``--src`` runs another checkout's
code (an older commit's ``src`` folder, say); ``--compare`` sets a saved run's figures
beside the new ones.

    python benchmarks/own_data.py write battery/
    python benchmarks/own_data.py run battery/ --seeds 0 1 2 3 4 --json new.json
    python benchmarks/own_data.py run battery/ --tasks reverse4 copy6 --seeds 0
    python benchmarks/own_data.py run battery/ --src old/src --json old.json
    python benchmarks/own_data.py run battery/ --json new.json --compare old.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

LETTERS = "abcdefghijklmnopqrstuvwxyz"
TRAIN_LENGTHS = (1, 8)
TEST_LENGTHS = (9, 16)


@dataclass(frozen=True)
class Task:
    """One file of the battery: its symbols, how a source becomes its target, how many
    training pairs, what a token is and which memory the task needs."""

    symbols: Sequence[str]
    target: Callable[[list[str]], list[str]]
    pairs: int
    tokens: str  # "chars" or "words"
    memory: str  # "stack", "queue", "deque" or "none"


def _outside_in(s: list[str]) -> list[str]:
    """Last, first, second-to-last, second, ...: a deque popped at both ends in turn."""
    out, low, high = [], 0, len(s) - 1
    while low <= high:
        out.append(s[high])
        if low < high:
            out.append(s[low])
        low, high = low + 1, high - 1
    return out


def _swap_pairs(s: list[str]) -> list[str]:
    """Each two neighbours swapped (Grefenstette et al.'s (2015) bigram flipping)."""
    out = []
    for i in range(0, len(s) - 1, 2):
        out += [s[i + 1], s[i]]
    return out + s[len(s) - len(s) % 2 :]


_CLOSE = {"(": ")", "[": "]", "{": "}"}

TASKS: dict[str, Task] = {
    "reverse2": Task("ab", lambda s: s[::-1], 800, "chars", "stack"),
    "reverse4": Task("abcd", lambda s: s[::-1], 800, "chars", "stack"),
    "reverse26": Task(LETTERS, lambda s: s[::-1], 1500, "words", "stack"),
    "brackets": Task("([{", lambda s: [_CLOSE[c] for c in s[::-1]], 800, "words", "stack"),
    "copy2": Task("ab", lambda s: list(s), 800, "chars", "queue"),
    "copy6": Task("abcdef", lambda s: list(s), 800, "chars", "queue"),
    "swap_pairs": Task("abcd", _swap_pairs, 800, "chars", "queue"),
    "outside_in": Task("abcd", _outside_in, 1000, "chars", "deque"),
    "parity": Task("ab", lambda s: [str(s.count("b") % 2)], 500, "chars", "none"),
    "last": Task("abcd", lambda s: s[-1:], 500, "chars", "none"),
}


def _lines(task: Task, rng: np.random.Generator, count: int, low: int, high: int) -> list[str]:
    """``count`` lines ``source<TAB>target``, sources of ``low``-``high`` symbols, each length
    equally likely."""
    join = "" if task.tokens == "chars" else " "
    lines = []
    for _ in range(count):
        source = list(rng.choice(list(task.symbols), size=rng.integers(low, high + 1)))
        lines.append(f"{join.join(source)}\t{join.join(task.target(source))}")
    return lines


def write(folder: Path, seed: int, tests: int = 200, scale: float = 1.0) -> None:
    """Write every task's training and test files, and ``battery.json``, into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    described = {}
    for name, task in TASKS.items():
        train = _lines(task, rng, max(1, round(task.pairs * scale)), *TRAIN_LENGTHS)
        test = _lines(task, rng, max(1, round(tests * scale)), *TEST_LENGTHS)
        for path, lines in ((folder / f"{name}.tsv", train), (folder / f"{name}_test.tsv", test)):
            path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        described[name] = {"tokens": task.tokens, "memory": task.memory, "pairs": len(train)}
    battery = {"seed": seed, "train_lengths": TRAIN_LENGTHS, "test_lengths": TEST_LENGTHS}
    battery["tasks"] = described
    (folder / "battery.json").write_text(json.dumps(battery, indent=1) + "\n")
    print(f"wrote {len(TASKS)} tasks into {folder}")


def _metrics(text: str) -> dict[str, float]:
    """The ``  name   value`` lines that ``memrnn fit`` and ``memrnn score`` print."""
    found = re.findall(r"^\s+([a-z_ ]+?)\s{2,}([-+0-9.e]+|nan|inf)\s*$", text, re.M)
    return {name: float(value) for name, value in found}


def _memrnn(args: list[str], src: Path | None) -> str:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
    done = subprocess.run(
        [sys.executable, "-m", "memrnn.cli", *args], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise RuntimeError(f"memrnn {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def _chosen(folder: Path) -> str:
    """The candidate ``fit`` chose, as its saved model records it (its model alone where
    the model records no choice)."""
    described = json.loads((folder / "model.json").read_text())
    chosen = described.get("selection", {}).get("chosen")
    return str(chosen) if chosen is not None else str(described.get("model", "?"))


def gates(folder: Path, pairs: Path) -> dict[str, float]:
    """How the saved model in ``folder`` uses its memory on ``pairs`` (teacher forced):
    its mean push and pop strengths while it reads the sources (a stack or queue that
    keeps every symbol pushes 1 and pops 0 there) and its mean pop while it writes the
    targets (1 for a stack or queue that reads every symbol back); empty for a model
    without gates. A pop of 0.05 a step while reading loses one pushed symbol in 20."""
    import torch

    from memrnn.models import load_model
    from memrnn.tasks.text_pairs import read_pairs

    saved = load_model(folder)
    if not hasattr(saved.model, "trace"):
        return {}
    task = saved.task
    encoded = [task.encode(p) for p in read_pairs(pairs, task.tokens)]
    with torch.no_grad():
        trace = saved.model.trace(task.make_batch(encoded).inputs)
    read = torch.zeros_like(trace.push, dtype=torch.bool)
    write = torch.zeros_like(read)
    for b, (source, target) in enumerate(encoded):
        read[b, 1 : len(source) + 1] = True  # the steps reading the source's tokens
        write[b, len(source) + 1 : len(source) + 1 + len(target)] = True
    return {
        "push_read": round(float(trace.push[read].mean()), 3),
        "pop_read": round(float(trace.pop[read].mean()), 3),
        "pop_write": round(float(trace.pop[write].mean()), 3),
    }


def run_one(battery: Path, work: Path, name: str, seed: int, src: Path | None,
            fit_args: list[str]) -> dict[str, object]:  # fmt: skip
    """Fit task ``name`` with ``seed``; its scores, seconds and chosen candidate."""
    tokens = json.loads((battery / "battery.json").read_text())["tasks"][name]["tokens"]
    out = work / f"{name}-seed{seed}"
    extra = ["--tokens", "chars"] if tokens == "chars" else []
    started = time.perf_counter()
    _memrnn(["fit", str(battery / f"{name}.tsv"), "--out", str(out), "--seed", str(seed),
             "--quiet", *extra, *fit_args], src)  # fmt: skip
    seconds = time.perf_counter() - started
    train = _metrics(_memrnn(["score", str(out), str(battery / f"{name}.tsv")], src))
    test = _metrics(_memrnn(["score", str(out), str(battery / f"{name}_test.tsv")], src))
    described = json.loads((out / "model.json").read_text())
    held = {c["name"]: c["held_out_accuracy"] for c in described.get("selection", {}).get(
        "candidates", [])}  # fmt: skip
    return {
        "task": name,
        "seed": seed,
        "train": train["sequence_accuracy"],
        "held_out": held.get(_chosen(out)),
        "test": test["sequence_accuracy"],
        "seconds": round(seconds, 1),
        "chosen": _chosen(out),
        "candidates": len(held),
        **gates(out, battery / f"{name}_test.tsv"),
    }


def _table(rows: list[dict[str, object]], old: dict[tuple[str, int], dict[str, object]],
           memory: dict[str, str], threshold: float) -> str:  # fmt: skip
    head = f"{'task':12s} {'seed':>4s} {'train':>6s} {'test':>6s} {'s':>6s}  chosen"
    if old:
        head += f"{'':18s} | old: {'train':>6s} {'test':>6s} {'s':>6s}"
    lines = [head]
    for row in rows:
        line = (f"{row['task']!s:12s} {row['seed']:>4} {row['train']:6.3f} {row['test']:6.3f} "
                f"{row['seconds']:6.1f}  {row['chosen']!s:18s}")  # fmt: skip
        before = old.get((str(row["task"]), int(row["seed"])))  # type: ignore[call-overload]
        if before is not None:
            line += (f" |      {before['train']:6.3f} {before['test']:6.3f} "
                     f"{before['seconds']:6.1f}")  # fmt: skip
        lines.append(line)
    lines.append("")
    for label, table in (("new", rows), ("old", list(old.values()))):
        mem = [r for r in table if memory.get(str(r["task"]), "none") != "none"]
        if mem:
            good = sum(float(r["test"]) >= threshold for r in mem)  # type: ignore[arg-type]
            slowest = max(float(r["seconds"]) for r in table)  # type: ignore[arg-type]
            lines.append(
                f"{label}: {good} of {len(mem)} memory (task, seed) pairs at test sequence "
                f"accuracy >= {threshold}; slowest fit {slowest:.0f} s"
            )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> None:
    battery = args.battery
    described = json.loads((battery / "battery.json").read_text())["tasks"]
    names = args.tasks or list(described)
    unknown = sorted(set(names) - set(described))
    if unknown:
        raise SystemExit(f"--tasks: {unknown[0]} is not in {battery / 'battery.json'}")
    work = args.work or battery / "fits"
    old = {}
    if args.compare is not None:
        old = {(r["task"], r["seed"]): r for r in json.loads(args.compare.read_text())["rows"]
               if r["task"] in names and r["seed"] in args.seeds}  # fmt: skip
    rows = []
    for name in names:
        for seed in args.seeds:
            row = run_one(battery, work, name, seed, args.src, args.fit_args)
            rows.append(row)
            print(f"{name} seed {seed}: train {row['train']:.3f} test {row['test']:.3f} "
                  f"{row['seconds']:.1f} s, chose {row['chosen']}", flush=True)  # fmt: skip
            if args.json is not None:  # after every fit, so a stopped run keeps its rows
                saved = {"src": str(args.src or "installed memrnn"), "rows": rows,
                         "fit_args": args.fit_args}  # fmt: skip
                args.json.write_text(json.dumps(saved, indent=1) + "\n")
    memory = {name: task["memory"] for name, task in described.items()}
    print(_table(rows, old, memory, args.threshold))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    writing = commands.add_parser("write", help="write the battery's files")
    writing.add_argument("folder", type=Path, help="where the files go")
    writing.add_argument("--seed", type=int, default=0, help="seeds the pairs (default: 0)")
    writing.add_argument(
        "--scale", type=float, default=1.0,
        help="multiplies every file's number of pairs (default: 1; the suite's smoke size "
        "is smaller)",
    )  # fmt: skip
    running = commands.add_parser("run", help="fit and score every task with every seed")
    running.add_argument("battery", type=Path, help="a folder that `write` made")
    running.add_argument("--tasks", nargs="*", help="these tasks only (default: all)")
    running.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4],
                         help="the fits' seeds (default: 0 1 2 3 4)")  # fmt: skip
    running.add_argument("--src", type=Path, help="run this checkout's src folder's memrnn "
                         "(default: the installed one)")  # fmt: skip
    running.add_argument("--work", type=Path, help="the fits' folders (default: BATTERY/fits)")
    running.add_argument("--json", type=Path, help="save the rows here, after every fit")
    running.add_argument("--compare", type=Path, help="a saved run's rows to set beside")
    running.add_argument(
        "--threshold", type=float, default=0.9,
        help="the test accuracy that counts as generalising (default: 0.9)",
    )  # fmt: skip
    running.add_argument(
        "--fit-args", nargs=argparse.REMAINDER, default=[],
        help="more arguments for every `memrnn fit` (last on the line)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.command == "write":
        write(args.folder, args.seed, scale=args.scale)
    else:
        run(args)


if __name__ == "__main__":
    main()
