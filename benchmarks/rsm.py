"""Reservoir stack machine: prefix-state caching against re-encoding the stack.

Algorithm 2 (lines 11-14) recomputes the stack's reservoir state from the bottom after
every pop; ``StackEncoder`` keeps the state of every prefix and restores it. This times
fit + predict of both on the same data in the same process and checks they agree.

    python benchmarks/rsm.py                 # Dyck2 and JSON, 100 + 100 words, 256 neurons
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from memrnn.languages.lr1 import automaton
from memrnn.languages.sampling import sample_words
from memrnn.reservoir.rsm import ReservoirStackMachine, StackTeacher
from memrnn.tasks.lr1_data import LR1Coding


def data(name: str, seed: int, n: int, lo: int, hi: int) -> tuple[list, list, np.ndarray]:
    coding = LR1Coding(automaton(name))
    examples = [
        coding.example(w) for w in sample_words(name, np.random.default_rng(seed), n, lo, hi)
    ]
    teachers = [StackTeacher(e.actions, e.shift, e.outputs) for e in examples]
    return [e.inputs for e in examples], teachers, coding.nonterminal_codes()


def timed(rsm: ReservoirStackMachine, train: tuple, test: tuple, reencode: bool) -> tuple:
    start = time.perf_counter()
    rsm.fit(train[0], train[1], nonterminals=train[2], reencode=reencode)
    fitted = time.perf_counter()
    outputs = rsm.predict(test[0], reencode=reencode)
    done = time.perf_counter()
    pairs = zip(outputs, test[1], strict=True)
    error = float(np.mean([np.abs(o - t.outputs).mean() for o, t in pairs]))
    return fitted - start, done - fitted, error, outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", nargs="+", default=["dyck2", "json"])
    parser.add_argument("--neurons", type=int, default=256)
    parser.add_argument("--reservoir", default="crj")
    args = parser.parse_args()
    print(
        f"# RSM fit + predict, {args.reservoir} reservoir of {args.neurons} neurons, "
        "100 training words (length <= 50), 100 test words (50-100)"
    )
    print()
    print(
        "| language | cached fit s | cached predict s | re-encoding fit s "
        "| re-encoding predict s | speed-up (fit + predict) | test MAE |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.languages:
        train, test = data(name, 0, 100, 1, 50), data(name, 1, 100, 50, 100)
        rsm = ReservoirStackMachine(
            args.reservoir, args.neurons, cycle_weight=0.5, jump_weight=0.3, jump_length=3
        )
        fit_c, pred_c, err, out_c = timed(rsm, train, test, reencode=False)
        fit_r, pred_r, _, out_r = timed(rsm, train, test, reencode=True)
        same = all(np.array_equal(a, b) for a, b in zip(out_c, out_r, strict=True))
        note = "" if same else " (outputs differ!)"
        print(
            f"| {name} | {fit_c:.2f} | {pred_c:.2f} | {fit_r:.2f} | {pred_r:.2f} "
            f"| {(fit_r + pred_r) / (fit_c + pred_c):.1f}x | {err:.4f}{note} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
