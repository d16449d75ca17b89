"""Every candidate of ``memrnn fit`` on the own-data battery, scored on the test file: how
often one run of a model generalises, and how often ``fit``'s choice finds one that does.

For each task and seed, ``fit``'s own code trains ``--restarts`` candidates of the
model the task needs (``battery.json``; ``--models`` to change it) without stopping
early, and each is scored on the test file (sources up to twice as long as any trained
on) both as trained and with its gates rounded to 0 or 1. The rows (``fit_seed`` the
fit's seed, ``seed`` the candidate's) give each
candidate's training, held-out and test sequence accuracy and its gate blur; the
summary per task and seed, how many candidates reach 90% on the test file as ``fit``
decodes them (rounded where the held-out pairs do at least as well), and the test
accuracy of the candidate ``fit`` would choose from the first 2, 4 and all of them,
stopping early as it does. Selection never reads the test file: the test scores are
taken after each candidate is trained and are not passed back.

    python benchmarks/own_data.py write battery/
    python benchmarks/own_data_candidates.py battery/ --seeds 0 1 --json candidates.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import torch
from torch import nn

from memrnn.cli.candidates import fit_candidates, fit_plan
from memrnn.cli.selection import GENERALISES, Candidate, choose
from memrnn.tasks.text_pairs import check_tokens, read_pairs
from memrnn.tasks.text_pairs_decoding import score_pairs

MODELS = {"stack": "stack_lstm", "queue": "queue_lstm", "deque": "deque_lstm"}


def study(
    battery: Path, name: str, seed: int, restarts: int, models: list[str],
    settings: dict[str, Any], options: dict[str, Any],
) -> list[dict]:  # fmt: skip
    """Every candidate of one fit of task ``name`` with ``seed`` (and ``fit``'s
    ``settings`` and model ``options``), with its test scores."""
    tokens = json.loads((battery / "battery.json").read_text())["tasks"][name]["tokens"]
    test = read_pairs(battery / f"{name}_test.tsv", check_tokens(tokens))
    plan = fit_plan(battery / f"{name}.tsv", None, models, options,
                    {**settings, "seed": seed}, tokens, restarts)  # fmt: skip
    rows: list[dict] = []

    def scored(candidate: Candidate, soft: nn.Module, rounded: nn.Module | None) -> None:
        task = plan.experiment.task
        rows.append({
            "task": name, "fit_seed": seed, **candidate.__dict__, "name": candidate.name,
            "test_soft": score_pairs(task, soft, test)["sequence_accuracy"],
            "test_rounded": score_pairs(task, rounded, test)["sequence_accuracy"]
            if rounded is not None else None,
        })  # fmt: skip
        row = rows[-1]
        rounded_test = "-" if row["test_rounded"] is None else f"{row['test_rounded']:.3f}"
        print(f"{name:10s} {seed:4d} {candidate.name:14s} train {candidate.train_accuracy:.3f} "
              f"held {candidate.held_out_accuracy:.3f} blur {candidate.gate_blur:.3f} "
              f"{'rounded' if candidate.rounded else 'soft':7s} test {row['test_soft']:.3f} "
              f"rounded {rounded_test}", flush=True)  # fmt: skip

    with tempfile.TemporaryDirectory() as out:
        fit_candidates(Path(out), plan, resume=False, quiet=True, settle=False,
                       on_candidate=scored)  # fmt: skip
    return rows


def decoded(row: dict) -> float:
    """The test accuracy as ``fit`` decodes the candidate (rounded where it rounds)."""
    return row["test_rounded"] if row["rounded"] else row["test_soft"]


def chosen(rows: list[dict], first: int) -> dict:
    """The candidate ``fit`` chooses from the first ``first``, stopping early as it does."""
    seen = []
    for row in rows[:first]:
        seen.append(row)
        if Candidate(**{k: row[k] for k in Candidate.__dataclass_fields__}).settles():
            break
    ranked = [Candidate(**{k: r[k] for k in Candidate.__dataclass_fields__}) for r in seen]
    return seen[choose(ranked)]


def summary(rows: list[dict]) -> list[str]:
    """Per task and seed: candidates that generalise, and what ``fit`` would choose."""
    lines = [f"{'task':10s} {'seed':>4s} {'cands':>5s} {'>=0.9':>5s} {'first 2':>8s} "
             f"{'first 4':>8s} {'all':>6s}"]  # fmt: skip
    keys = sorted({(r["task"], r["fit_seed"]) for r in rows})
    won = {2: 0, 4: 0, 0: 0}
    for task, seed in keys:
        mine = [r for r in rows if (r["task"], r["fit_seed"]) == (task, seed)]
        good = sum(decoded(r) >= GENERALISES for r in mine)
        picks = {k: decoded(chosen(mine, k or len(mine))) for k in won}
        for k, value in picks.items():
            won[k] += value >= GENERALISES
        lines.append(f"{task:10s} {seed:4d} {len(mine):5d} {good:5d} {picks[2]:8.3f} "
                     f"{picks[4]:8.3f} {picks[0]:6.3f}")  # fmt: skip
    lines.append(f"chosen at >= {GENERALISES}: first 2 {won[2]}, first 4 {won[4]}, "
                 f"all {won[0]} of {len(keys)} (task, seed) pairs")  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("battery", type=Path, help="a folder that `own_data.py write` made")
    parser.add_argument("--tasks", nargs="*", help="these tasks (default: the memory tasks)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--restarts", type=int, default=6, help="candidates a fit (default 6)")
    parser.add_argument("--models", nargs="*", help="the models (default: the task's memory)")
    parser.add_argument("--steps", type=int, help="each candidate's steps (default: fit's)")
    parser.add_argument("--option", nargs="*", default=[], metavar="KEY=VALUE",
                        help="model build options, values as JSON")  # fmt: skip
    parser.add_argument("--json", type=Path, help="save every candidate's row here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    tasks = json.loads((args.battery / "battery.json").read_text())["tasks"]
    names = args.tasks or [n for n, t in tasks.items() if t["memory"] != "none"]
    rows: list[dict] = []
    for seed in args.seeds:
        for name in names:
            models = args.models or [MODELS[tasks[name]["memory"]]]
            settings = {} if args.steps is None else {"steps": args.steps}
            options = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.option)}
            rows += study(args.battery, name, seed, args.restarts, models, settings, options)
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
    print("\n".join(summary(rows)))


if __name__ == "__main__":
    main()
