"""The compiled time loops (``memrnn/models/controller/loops.cpp``) against the Python
loops they equal, on the training step of Grefenstette et al.'s (2015) quick profile.

Each memory model of that profile (hidden 64, embeddings 32, memory width 64, batch 32,
Adam) trains on reversal at the longest training lengths (sources of up to 32 symbols),
the two ways taking turns in the same process over ``--rounds`` rounds of ``--steps``
steps; the best round of each is printed, with their ratio. The two give the same
numbers bit for bit (``tests/models/controller/test_native.py``).

    python benchmarks/compiled_loops.py                  # one thread
    python benchmarks/compiled_loops.py --threads 2
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from memrnn.experiments.grefenstette2015 import Grefenstette2015Config, TransductionRun
from memrnn.models.controller.native import loops, python_loops


def _steps(run: TransductionRun, optimizer: torch.optim.Optimizer,
           rng: np.random.Generator, steps: int) -> float:  # fmt: skip
    """Seconds per training step over ``steps`` steps."""
    started = time.perf_counter()
    for _ in range(steps):
        loss = run.loss(run.training_batch(rng))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return (time.perf_counter() - started) / steps


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--models",
        nargs="+",
        default=["stack", "queue", "deque"],
        help="the quick profile's models: any of stack, queue, deque, lstm (default: %(default)s)",
    )
    parser.add_argument("--steps", type=int, default=10, help="training steps a round")
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="rounds in which the two ways take turns; the best is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch.set_num_threads (default: %(default)s)"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if loops(torch.zeros(())) is None:
        raise SystemExit("the compiled loops could not be built here (see the warning)")
    print(f"Grefenstette et al. quick profile, reversal at sources up to 32, "
          f"{args.threads} thread(s), torch {torch.__version__}")  # fmt: skip
    print("model    Python ms/step  compiled ms/step  speed-up")
    for model in args.models:
        ways = {}
        for way in ("python", "compiled"):
            torch.manual_seed(0)
            run = TransductionRun(Grefenstette2015Config(model=model, task="reversal"),
                                  torch.device("cpu"))  # fmt: skip
            run.model.bound.fill_(run.config.max_length)
            optimizer = torch.optim.Adam(run.model.parameters(), lr=run.config.lr)
            ways[way] = (run, optimizer, np.random.default_rng(0))
        with python_loops():
            _steps(*ways["python"], 1)  # a warm-up step each
        _steps(*ways["compiled"], 1)
        best = {way: float("inf") for way in ways}
        for _ in range(args.rounds):
            with python_loops():
                best["python"] = min(best["python"], _steps(*ways["python"], args.steps))
            best["compiled"] = min(best["compiled"], _steps(*ways["compiled"], args.steps))
        print(f"{model:8s} {best['python'] * 1e3:14.1f} {best['compiled'] * 1e3:17.1f} "
              f"{best['python'] / best['compiled']:9.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
