"""How long drawing the training batches takes, task by task, at the matrix's quick profile.

Every run of ``memrnn reproduce matrix --profile quick`` draws a fresh batch of 32
sequences of lengths 1 to N = 10 at each of its 2,000 steps, in Python, on the same core
that trains it. For each task of that profile this prints the best time of one such draw
(after a warm-up, over ``--rounds`` rounds of ``--batches`` draws) and what the draws of
the profile's runs of that task add up to: 2,000 batches per run, times the runs that
train on it (8 per trained model: 2 learning rates x 4 seeds).

    python benchmarks/sampling.py
    python benchmarks/sampling.py --tasks rsm_dyck2 reversal --batches 500
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from memrnn.experiments.matrix.config import RESERVOIR_MODELS, MatrixConfig
from memrnn.experiments.matrix.experiment import Matrix
from memrnn.experiments.matrix.run import make_cell_task, shortest


def seconds_per_batch(config: MatrixConfig, batches: int, rounds: int) -> float:
    """The best time of one training batch of ``config``'s task, as its runs draw them."""
    task = make_cell_task(config)
    low, high = shortest(task), max(shortest(task), config.train_max)
    rng = np.random.default_rng(0)
    for _ in range(batches // 10 + 1):  # warm-up: the first draws fill what is kept
        task.sample_batch(rng, config.batch_size, low, high)
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(batches):
            task.sample_batch(rng, config.batch_size, low, high)
        best = min(best, (time.perf_counter() - started) / batches)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", help="default: every task of the profile")
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    specs = Matrix().runs("quick")
    trained = Counter(s.config["task"] for s in specs if s.config["model"] not in RESERVOIR_MODELS)
    first = {s.config["task"]: MatrixConfig(**s.config) for s in reversed(specs)}
    tasks = args.tasks or list(trained)
    print("| task | ms per batch | trained runs | minutes of the profile's run time |")
    print("|---|---:|---:|---:|")
    total = 0.0
    for name in tasks:
        config = first[name]
        seconds = seconds_per_batch(config, args.batches, args.rounds)
        minutes = seconds * config.steps * trained[name] / 60
        total += minutes
        print(f"| {name} | {1000 * seconds:.3f} | {trained[name]} | {minutes:.1f} |", flush=True)
    print(f"| all | | {sum(trained[n] for n in tasks)} | {total:.1f} |")


if __name__ == "__main__":
    main()
