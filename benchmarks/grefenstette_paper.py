"""What Grefenstette et al.'s (2015) ``paper`` profile would cost: seconds per training
step of every model of its grid (the Deep LSTM at 1, 2, 4 and 8 layers; the Stack-,
Queue- and DeQue-LSTM) at hidden 256 and 512, batch 10, sources of 8-64 symbols (T up
to 131), and the projected wall time of the whole profile run one run at a time.

Each step is the experiment's own (``memrnn.experiments.grefenstette2015.run``: a batch
drawn by the task at the longest curriculum bound, the loss, backward, clipping at 1,
RMSProp), the median of ``--steps`` timed steps after a warm-up. Each evaluation scores
``eval_size`` sequences three times (the curriculum's, the training and the test
lengths; the greedy accuracies, from one teacher-forced pass); one test-length score is
timed and counted three times per evaluation. The
projection sums, over the grid's runs (5 tasks x 5 learning rates per model and size),
the profile's steps times the step time plus its evaluations times their time, with the
mean over the tasks timed. The memory models' runs that differ only in learning rate
train as one group on a GPU (``memrnn.training.train_group``, each member with its own RMSProp,
as ``memrnn reproduce`` trains them there): their group step is timed too (``--group``,
the median interval between steps of five members, the paper's five rates), and the
second projection counts each group's steps once.

    python benchmarks/grefenstette_paper.py                  # CPU
    python benchmarks/grefenstette_paper.py --device cuda
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections import Counter
from dataclasses import replace

import numpy as np
import torch

from memrnn.experiments.grefenstette2015.config import Grefenstette2015Config
from memrnn.experiments.grefenstette2015.paper import PAPER_LRS, PAPER_SETTINGS
from memrnn.experiments.grefenstette2015.profiles import PROFILES
from memrnn.experiments.grefenstette2015.run import TransductionRun
from memrnn.models.grouped import Grouped
from memrnn.training import LoopSettings, StepReport, make_optimizer, train_group


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def step_and_score_seconds(
    config: Grefenstette2015Config, device: torch.device, steps: int
) -> tuple[float, float]:
    """The median time of one training step of ``config`` on ``device``, and the time of
    one score of ``eval_size`` sources of the test lengths."""
    torch.manual_seed(config.seed)
    run = TransductionRun(config, device)
    optimizer = torch.optim.RMSprop(run.model.parameters(), lr=config.lr)
    rng = np.random.default_rng(0)
    times = []
    for step in range(steps + 3):  # three warm-up steps
        _sync(device)
        started = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        run.loss(run.training_batch(rng)).backward()
        torch.nn.utils.clip_grad_norm_(run.model.parameters(), config.clip)
        optimizer.step()
        _sync(device)
        if step >= 3:
            times.append(time.perf_counter() - started)
    with torch.no_grad():
        started = time.perf_counter()
        run.score(rng, config.test_min_length, config.test_max_length)
        _sync(device)
        score = time.perf_counter() - started
    return statistics.median(times), score


def group_step_seconds(
    config: Grefenstette2015Config, device: torch.device, lrs: list[float], steps: int
) -> float:
    """The median time of one step of ``len(lrs)`` runs of ``config`` at those learning
    rates trained as one group (their evaluation after the last step left out)."""
    runs = []
    for lr in lrs:
        torch.manual_seed(config.seed)
        # one score of a few sequences after the last step: not timed
        runs.append(TransductionRun(replace(config, lr=lr, eval_size=2), device))
    stamps: list[float] = []

    def stamp(member: int, report: StepReport) -> None:
        if member == 0:
            _sync(device)
            stamps.append(time.perf_counter())

    train_group(
        runs, Grouped([run.network for run in runs]),
        LoopSettings(steps=steps + 4, clip=config.clip, monitor="train_coarse",
                     monitor_mode="max"),
        optimizers=[make_optimizer("rmsprop", run.model.parameters(), lr, config.weight_decay)
                    for run, lr in zip(runs, lrs, strict=True)],
        data_rngs=[np.random.default_rng(k) for k in range(len(lrs))],
        eval_rngs=[lambda step: np.random.default_rng(step) for _ in lrs],
        on_step=stamp,
    )  # fmt: skip
    # from the fourth step on; the last interval holds the evaluation after training
    intervals = [b - a for a, b in itertools.pairwise(stamps[3:-1])]
    return statistics.median(intervals)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--device", default="cpu", help="the torch device, e.g. cpu or cuda (default: %(default)s)"
    )
    parser.add_argument("--steps", type=int, default=10, help="timed steps per model")
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=["reversal", "conjugation"],
        help="tasks timed, any of copy, reversal, bigram_flip, svo_sov, conjugation"
        " (default: %(default)s)",
    )
    parser.add_argument(
        "--eval-size", type=int, help="sequences per score (default: the paper's 1,000)"
    )
    parser.add_argument(
        "--no-group", action="store_true", help="leave out the groups' step (memory models)"
    )
    args = parser.parse_args()
    device = torch.device(args.device)
    points = list(PROFILES["paper"].points())
    runs = Counter((p["model"], p["layers"], p["hidden"]) for p in points)
    total_steps, every = PAPER_SETTINGS["steps"], PAPER_SETTINGS["eval_every"]
    evaluations = total_steps // every
    unit = "GPU-h" if device.type == "cuda" else "CPU-h"
    name = torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu"
    print(f"device: {name}, torch {torch.__version__}, threads {torch.get_num_threads()}")
    print(f"paper profile: {len(points)} runs of {total_steps:,} steps, {evaluations} "
          f"evaluations each")  # fmt: skip
    print(f"{'model':<16}{'runs':>6}{'step ms':>10}{'score s':>10}{unit:>10}"
          f"{'group ms':>10}{unit + ' grouped':>16}")  # fmt: skip
    projected = grouped = 0.0
    for (model, layers, hidden), count in sorted(runs.items()):
        steps, scores, groups = [], [], []
        for task in args.tasks:
            settings = {**PAPER_SETTINGS, "task": task, "model": model, "layers": layers,
                        "hidden": hidden, "lr": 1e-3, "seed": 0}  # fmt: skip
            if args.eval_size:
                settings["eval_size"] = args.eval_size
            step, score = step_and_score_seconds(
                Grefenstette2015Config(**settings), device, args.steps
            )
            steps.append(step)
            scores.append(score * PAPER_SETTINGS["eval_size"] / settings["eval_size"])
            if model != "lstm" and not args.no_group:  # nn.LSTM does not stack
                config = Grefenstette2015Config(**settings)
                groups.append(group_step_seconds(config, device, list(PAPER_LRS), args.steps))
        step, score = statistics.mean(steps), statistics.mean(scores)
        evaluating = count * evaluations * 3 * score
        hours = (count * total_steps * step + evaluating) / 3600
        projected += hours
        if groups:  # a group of len(PAPER_LRS) runs steps once for all of them
            group = statistics.mean(groups)
            as_groups = (count // len(PAPER_LRS) * total_steps * group + evaluating) / 3600
            cells = f"{group * 1e3:>10.1f}{as_groups:>16,.1f}"
        else:
            as_groups, cells = hours, f"{'-':>10}{hours:>16,.1f}"
        grouped += as_groups
        label = f"{model} x{layers}" if model == "lstm" else model
        print(f"{label + f' h{hidden}':<16}{count:>6}{step * 1e3:>10.1f}{score:>10.2f}"
              f"{hours:>10,.1f}{cells}", flush=True)  # fmt: skip
    print(f"projected, one run at a time: {projected:,.0f} {unit}")
    if not args.no_group:
        print(f"projected, the memory models' rates as groups of {len(PAPER_LRS)}: "
              f"{grouped:,.0f} {unit}")  # fmt: skip


if __name__ == "__main__":
    main()
