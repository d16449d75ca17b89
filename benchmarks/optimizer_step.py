"""A run's optimiser step: torch's AdamW and ``clip_grad_norm_`` against memrnn's flat
AdamW and lean clip (``memrnn.training.flat_adam``, ``memrnn.training.clipping``), on the
models of Grefenstette et al.'s (2015) quick profile.

For each model and curriculum bound, two copies of the run's model (its first start, on
reversal) train on the same batches, one step each in turn, as the training loop does a
step: the loss, ``zero_grad``, the backward pass, clipping the gradient's norm to 1 and
the AdamW step. One copy uses ``torch.optim.AdamW(foreach=True)`` with torch's
``zero_grad`` and ``torch.nn.utils.clip_grad_norm_`` (the loop before the flat step), the
other what the loop uses now. The table gives, in ms, the median over ``--rounds``
rounds of ``--steps`` steps of the whole step and of its optimiser part (``zero_grad``,
clipping and the step), both ways, the ratio of the whole steps (flat over torch), and
whether the two copies' weights are the same bit for bit at the end. One thread, with
malloc set as the runner's processes set it (``memrnn.runner.allocator``).

    python benchmarks/optimizer_step.py
    python benchmarks/optimizer_step.py --models stack lstm --bounds 8 --rounds 9
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from quick_step import add_quick_arguments, quick_run
from torch import nn

from memrnn.experiments.config import make_optimizer
from memrnn.experiments.grefenstette2015 import TransductionRun
from memrnn.runner.allocator import keep_freed_memory
from memrnn.training.clipping import clip_grad_norm_

Clip = Callable[[Any, float], Any]


def _round(
    run: TransductionRun, optimizer: torch.optim.Optimizer, clip: Clip, batches: list[Any]
) -> tuple[float, float]:
    """Seconds a step, whole and in the optimiser's part, over ``batches``."""
    params = list(run.model.parameters())
    whole = part = 0.0
    for batch in batches:
        started = time.perf_counter()
        loss = run.loss(batch)
        before = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        between = time.perf_counter()
        loss.backward()
        after = time.perf_counter()
        clip(params, 1.0)
        optimizer.step()
        ended = time.perf_counter()
        whole += ended - started
        part += (between - before) + (ended - after)
    return whole / len(batches), part / len(batches)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_quick_arguments(parser, bounds=[8, 32])
    parser.add_argument("--steps", type=int, default=40, help="training steps a round")
    parser.add_argument(
        "--rounds",
        type=int,
        default=7,
        help="timed rounds, the two ways in turn; medians are reported (default: %(default)s)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    keep_freed_memory()
    print(f"Grefenstette et al. quick profile, reversal, batch 32, one thread, torch "
          f"{torch.__version__}; ms a step, medians of {args.rounds} rounds")  # fmt: skip
    print("model   bound   step torch  step flat  optimiser torch  optimiser flat  ratio  same")
    for model in args.models:
        for bound in args.bounds:
            flat = quick_run(model, bound)
            plain, config = copy.deepcopy(flat), flat.config
            ways: list[tuple[TransductionRun, torch.optim.Optimizer, Clip]] = [
                (plain, torch.optim.AdamW(plain.model.parameters(), lr=config.lr,
                                          weight_decay=config.weight_decay, foreach=True),
                 nn.utils.clip_grad_norm_),
                (flat, make_optimizer(config, flat.model.parameters()), clip_grad_norm_),
            ]  # fmt: skip
            rng = np.random.default_rng(0)
            batches = [flat.training_batch(rng) for _ in range(args.steps)]
            times: list[list[tuple[float, float]]] = [[], []]
            for r in range(args.rounds + 1):  # the first round warms up
                for i in (0, 1) if r % 2 else (1, 0):
                    torch.manual_seed(r)  # the same gate noise both ways
                    timed = _round(*ways[i], batches)
                    if r:
                        times[i].append(timed)
            same = all(
                torch.equal(a, b)
                for a, b in zip(plain.model.parameters(), flat.model.parameters(), strict=True)
            )
            (step_t, part_t), (step_f, part_f) = (
                tuple(statistics.median(x[k] for x in t) * 1e3 for k in (0, 1)) for t in times
            )
            print(f"{model:7s} {bound:5d} {step_t:12.2f} {step_f:10.2f} {part_t:16.2f} "
                  f"{part_f:15.2f} {step_f / step_t:6.3f}  {'yes' if same else 'NO'}")  # fmt: skip


if __name__ == "__main__":
    main()
