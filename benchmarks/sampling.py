"""How long drawing the training batches takes, task by task, at the matrix's quick profile.

Every run of ``memrnn reproduce matrix --profile quick`` draws a fresh batch of 32
sequences of lengths 1 to N = 10 at each of its 2,000 steps, in Python, on the same core
that trains it. For each task this prints the best time of one such draw (after a
warm-up, over ``--rounds`` rounds of ``--batches`` draws) and, for a task of that
profile, what the draws of its runs add up to: 2,000 batches per run, times the runs that
train on it (8 per trained model: 2 learning rates x 4 seeds). ``--lengths`` draws a task
outside the profile (Grefenstette et al.'s SVO -> SOV, say) at the lengths given.

``--train TASK`` instead trains every model's runs of that task at the profile's
settings, grouped as the runner groups them, and prints each model's seconds (training
and the range evaluation): run it in a checkout before a change and in one after, side by
side, to see what a faster sampler gives a column of the matrix.

    python benchmarks/sampling.py
    python benchmarks/sampling.py --tasks svo_sov conjugation --lengths 1 32
    python benchmarks/sampling.py --train rsm_dyck2
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict

import numpy as np
import torch

from memrnn.experiments.base import RunContext
from memrnn.experiments.matrix.config import RESERVOIR_MODELS, MatrixConfig
from memrnn.experiments.matrix.experiment import Matrix
from memrnn.experiments.matrix.run import make_cell_task, shortest
from memrnn.runner.allocator import keep_freed_memory
from memrnn.tasks import Task, make_task

BATCH = 32


def seconds_per_batch(task: Task, low: int, high: int, batches: int, rounds: int) -> float:
    """The best time of one batch of ``BATCH`` sequences of lengths ``low`` to ``high``."""
    rng = np.random.default_rng(0)
    for _ in range(batches // 10 + 1):  # warm-up: the first draws fill what is kept
        task.sample_batch(rng, BATCH, low, high)
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(batches):
            task.sample_batch(rng, BATCH, low, high)
        best = min(best, (time.perf_counter() - started) / batches)
    return best


def draws(args: argparse.Namespace, configs: dict[str, list[MatrixConfig]]) -> None:
    trained = Counter({name: sum(c.model not in RESERVOIR_MODELS for c in cs)
                       for name, cs in configs.items()})  # fmt: skip
    print("| task | ms per batch | trained runs | minutes of the profile's run time |")
    print("|---|---:|---:|---:|")
    total = 0.0
    for name in args.tasks or list(configs):
        if name in configs and not args.lengths:
            config = configs[name][0]
            task = make_cell_task(config)
            low, high = shortest(task), max(shortest(task), config.train_max)
        else:
            task, (low, high) = make_task(name), args.lengths or (1, 10)
        seconds = seconds_per_batch(task, low, high, args.batches, args.rounds)
        if name in configs and not args.lengths:
            minutes = seconds * configs[name][0].steps * trained[name] / 60
            total += minutes
            print(f"| {name} | {1000 * seconds:.3f} | {trained[name]} | {minutes:.1f} |")
        else:
            print(f"| {name} (lengths {low}-{high}) | {1000 * seconds:.3f} | | |", flush=True)
    if total:
        print(f"| all of the profile's tasks above | | | {total:.1f} |")


def train(name: str, configs: list[MatrixConfig]) -> None:
    """Each trained model's runs of task ``name``, grouped as the runner groups them."""
    keep_freed_memory()  # as the runner's processes do
    torch.set_num_threads(1)
    experiment = Matrix()
    groups: dict[str, dict[object, list[MatrixConfig]]] = defaultdict(dict)
    for c in configs:
        if c.model not in RESERVOIR_MODELS:
            groups[c.model].setdefault(experiment.group_key(c) or id(c), []).append(c)
    print("| model | runs | seconds |")
    print("|---|---:|---:|")
    total = 0.0
    for model, by_key in groups.items():
        started = time.perf_counter()
        for members in by_key.values():
            contexts = [RunContext(torch.device("cpu")) for _ in members]
            if len(members) > 1:
                experiment.fit_group(members, contexts)
            else:
                experiment.fit_run(members[0], contexts[0])
        seconds = time.perf_counter() - started
        total += seconds
        runs = sum(len(m) for m in by_key.values())
        print(f"| {model} | {runs} | {seconds:.1f} |", flush=True)
    print(f"| all | | {total:.0f} ({total / 60:.1f} min) |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", nargs="+", help="default: every task of the profile")
    parser.add_argument(
        "--lengths",
        type=int,
        nargs=2,
        metavar=("LOW", "HIGH"),
        help="draw at lengths LOW to HIGH (without: a profile task's own, else 1 to 10)",
    )
    parser.add_argument(
        "--batches", type=int, default=300, help="draws timed a round (default: %(default)s)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="timed rounds after a warm-up; the best is reported (default: %(default)s)",
    )
    parser.add_argument("--train", metavar="TASK", help="train the task's runs instead")
    args = parser.parse_args()
    configs: dict[str, list[MatrixConfig]] = defaultdict(list)
    for spec in Matrix().runs("quick"):
        configs[spec.config["task"]].append(MatrixConfig(**spec.config))
    if args.train:
        train(args.train, configs[args.train])
    else:
        draws(args, configs)


if __name__ == "__main__":
    main()
