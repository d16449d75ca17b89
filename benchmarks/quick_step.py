"""Where a training step of Grefenstette et al.'s (2015) quick profile goes, by the
curriculum's bound.

A quick run trains 8,000 steps of batch 32 while its curriculum raises the longest
source it draws from 4 to 32, so most of its steps are on short sequences. For each
model and bound this trains the run's own model (its first start) on reversal with its
optimiser and prints the step's time, the time of the recurrence's operator (forward and
backward, ``memrnn.models.controller.ops``), what is left (the embedding, the input and
output layers, the loss, the autograd engine, the optimiser) and the time to draw one
batch, the best of ``--rounds`` rounds of ``--steps`` steps, one thread by default as
the runner uses. Then, from one more round under ``torch.profiler``, the time of the
step's matrix products alone (ATen's ``mm``, ``addmm``, ``bmm`` and ``baddbmm``, in
place or not, forward and backward) and their share of the step: what any implementation
that keeps these products would still spend, however little else it did. The Deep LSTM's
cell is one oneDNN kernel, whose products the profiler does not show apart, so its share
is not a floor.

    python benchmarks/quick_step.py
    python benchmarks/quick_step.py --models stack deque lstm --bounds 8 16 32
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch.profiler import profile

from memrnn.experiments.config import make_optimizer
from memrnn.experiments.grefenstette2015 import Grefenstette2015Config, TransductionRun
from memrnn.experiments.grefenstette2015.profiles import QUICK_STARTS
from memrnn.models.controller import ops

PRODUCTS = {"aten::mm", "aten::addmm", "aten::addmm_", "aten::bmm", "aten::baddbmm",
            "aten::baddbmm_"}  # fmt: skip


def _timed(spent: dict[str, float], name: str) -> None:
    """Adds the seconds spent in ``ops.<name>`` (the operator's forward or backward,
    looked up there at each call) to ``spent[name]``."""
    inner: Callable[..., Any] = getattr(ops, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - started

    setattr(ops, name, timed)


def quick_run(model: str, bound: int) -> TransductionRun:
    """A quick run of ``model`` (its first start) on reversal, its curriculum at ``bound``,
    its weights drawn from seed 0."""
    torch.manual_seed(0)
    start = next(iter(QUICK_STARTS[model].values()))
    config = Grefenstette2015Config(model=model, task="reversal", **start)
    run = TransductionRun(config, torch.device("cpu"))
    run.model.bound.fill_(bound)
    return run


def train(run: TransductionRun, optimizer: torch.optim.Optimizer, batches: list[Any]) -> None:
    """One training step on each batch."""
    for batch in batches:
        loss = run.loss(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def add_quick_arguments(parser: argparse.ArgumentParser, bounds: list[int]) -> None:
    """``--models`` and ``--bounds``: which quick runs are timed, at which bounds."""
    parser.add_argument(
        "--models",
        nargs="+",
        default=["stack", "queue", "deque", "lstm"],
        help="the quick profile's models: any of stack, queue, deque, lstm (default: %(default)s)",
    )
    parser.add_argument(
        "--bounds",
        nargs="+",
        type=int,
        default=bounds,
        help="the curriculum's bounds (longest sources) timed at (default: %(default)s)",
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_quick_arguments(parser, bounds=[8, 16, 32])
    parser.add_argument("--steps", type=int, default=50, help="training steps a round")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="timed rounds after a warm-up; the best is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch.set_num_threads (default: %(default)s)"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    spent = {"forward": 0.0, "backward": 0.0}
    for name in spent:
        _timed(spent, name)
    print(f"Grefenstette et al. quick profile, reversal, batch 32, {args.threads} thread(s), "
          f"torch {torch.__version__}; ms a step, the best of {args.rounds} rounds")  # fmt: skip
    print("model   bound  mean T   step  recurrence fwd  bwd    rest   drawing  products  share")
    for model in args.models:
        for bound in args.bounds:
            run = quick_run(model, bound)
            optimizer = make_optimizer(run.config, run.model.parameters())
            rng = np.random.default_rng(0)
            batches = [run.training_batch(rng) for _ in range(args.steps)]
            best = (float("inf"), 0.0, 0.0)
            for _ in range(args.rounds + 1):  # the first round warms up
                spent.update(forward=0.0, backward=0.0)
                started = time.perf_counter()
                train(run, optimizer, batches)
                step = (time.perf_counter() - started) / args.steps
                best = min(best, (step, spent["forward"] / args.steps,
                                  spent["backward"] / args.steps))  # fmt: skip
            with profile() as profiled:
                train(run, optimizer, batches)
            products = sum(e.self_cpu_time_total for e in profiled.key_averages()
                           if e.key in PRODUCTS) / 1e6 / args.steps  # fmt: skip
            started = time.perf_counter()
            for _ in range(args.steps):
                run.training_batch(rng)
            drawing = (time.perf_counter() - started) / args.steps
            step, forward, backward = (x * 1e3 for x in best)
            rest = step - forward - backward
            mean_t = np.mean([b.inputs.shape[1] for b in batches])
            print(f"{model:7s} {bound:5d} {mean_t:7.1f} {step:6.1f} {forward:15.1f} "
                  f"{backward:4.1f} {rest:7.1f} {drawing * 1e3:9.2f} {products * 1e3:9.1f} "
                  f"{products / best[0]:6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
