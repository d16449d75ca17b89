"""Reservoir stack machine: prefix-state caching against re-encoding the stack.

Algorithm 2 (lines 11-14) recomputes the stack's reservoir state from the bottom after
every pop; ``StackEncoder`` keeps the state of every prefix and restores it. This times
fit + predict of both on the same data sets of ``paassen2021`` (100 training words up to
length 50, 100 test words of length 50 to 100) in the same process, checks that their
outputs agree. Each variant is timed ``--repeats`` times after a warm-up; the fastest
counts.

    python benchmarks/rsm.py                          # Dyck2 and JSON, LDN, 256 neurons
    python benchmarks/rsm.py --test-lengths 200 400   # longer test words, deeper stacks
    python benchmarks/rsm.py --tasks dyck1 latch --reservoir CRJ
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from memrnn.estimators import ReservoirStackMachine
from memrnn.experiments.paassen2021 import QUICK_PARAMS, RESERVOIRS, mean_absolute_error
from memrnn.tasks.rsm_benchmarks import Dataset, make_dataset, scored_rows


def timed(rsm: ReservoirStackMachine, train: Dataset, test: Dataset, reencode: bool) -> tuple:
    start = time.perf_counter()
    rsm.fit(train.inputs, train.teachers, nonterminals=train.nonterminals, reencode=reencode)
    fitted = time.perf_counter()
    outputs = rsm.predict(test.inputs, reencode=reencode)
    done = time.perf_counter()
    scored = [scored_rows(train.task, y) for y in outputs]
    error = mean_absolute_error(scored, test.targets)
    return fitted - start, done - fitted, error, outputs


def best_of(
    repeats: int, rsm: ReservoirStackMachine, train: Dataset, test: Dataset, reencode: bool
) -> tuple:
    """The fastest of ``repeats`` timings (fit and predict each at their minimum)."""
    runs = [timed(rsm, train, test, reencode) for _ in range(repeats)]
    fit = min(r[0] for r in runs)
    predict = min(r[1] for r in runs)
    return fit, predict, runs[0][2], runs[0][3]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=["dyck2", "json"],
        help="data sets, any of latch, copy, repeat_copy, dyck1, dyck2, dyck3, anbn, palindrome, "
        "json (default: %(default)s)",
    )
    parser.add_argument(
        "--neurons", type=int, default=256, help="the reservoir's neurons (default: %(default)s)"
    )
    parser.add_argument(
        "--reservoir",
        default="LDN",
        choices=sorted(RESERVOIRS),
        help="rand, CRJ (cycle with jumps) or LDN (Legendre delay network) (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the seed of the data sets and of the reservoir (default: %(default)s)",
    )
    parser.add_argument(
        "--test-lengths",
        type=int,
        nargs=2,
        default=[50, 100],
        help="shortest and longest test words (not copy or repeat_copy) (default: %(default)s)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timings per variant (best)")
    args = parser.parse_args()
    print(
        f"# RSM fit + predict, {args.reservoir} reservoir of {args.neurons} neurons with the "
        f"quick profile's settings, 100 training words (length <= 50) and 100 test words "
        f"(length {args.test_lengths[0]} to {args.test_lengths[1]})"
    )
    print()
    print(
        "| task | mean / max stack depth | cached fit s | cached predict s "
        "| re-encoding fit s | re-encoding predict s | speed-up (fit + predict) | test MAE |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for task in args.tasks:
        rng = np.random.default_rng(args.seed)
        train = make_dataset(task, rng, 100, test=False)
        test = make_dataset(task, rng, 100, test=True, test_lengths=tuple(args.test_lengths))
        params = QUICK_PARAMS.get((f"{args.reservoir}-RSM", task), {})
        rsm = ReservoirStackMachine(
            RESERVOIRS[args.reservoir], args.neurons, random_state=args.seed, **params
        )
        timed(rsm, train, test, reencode=False)  # warm-up: first calls load and allocate
        fit_c, pred_c, err, out_c = best_of(args.repeats, rsm, train, test, reencode=False)
        fit_r, pred_r, _, out_r = best_of(args.repeats, rsm, train, test, reencode=True)
        same = all(np.array_equal(a, b) for a, b in zip(out_c, out_r, strict=True))
        note = "" if same else " (outputs differ!)"
        depths = [_depth(teacher) for teacher in test.teachers]
        print(
            f"| {task} | {np.mean(depths):.1f} / {max(depths)} | {fit_c:.2f} | {pred_c:.2f} "
            f"| {fit_r:.2f} | {pred_r:.2f} | {(fit_r + pred_r) / (fit_c + pred_c):.1f}x "
            f"| {err:.4f}{note} |",
            flush=True,
        )


def _depth(teacher) -> int:  # type: ignore[no-untyped-def]
    """The deepest the teacher's stack gets."""
    depth = deepest = 0
    for actions, shift in zip(teacher.actions, teacher.shift, strict=True):
        for pops, push in actions:
            depth += (push >= 0) - pops
            deepest = max(deepest, depth)
        depth += int(shift)
        deepest = max(deepest, depth)
    return deepest


if __name__ == "__main__":
    main()
