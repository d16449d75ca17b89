"""What the generalisation matrix's ``paper`` profile would cost: seconds per training
step of every model at Delétang et al.'s scale (batch 128, lengths 1-40, hidden 256), on
a few tasks, and the projected wall time of the whole profile run one run at a time.

Each step is the matrix's own (``memrnn.experiments.matrix.run.CellSteps``: a batch drawn
by the task, the task's loss, backward, clipping, Adam), the median of ``--steps`` timed
steps after a warm-up. The projection multiplies each model's mean step time over the
tasks timed by the profile's steps and by its number of runs of that model (every task it
reads, every rate, every seed), and adds nothing for evaluation.

    python benchmarks/matrix_paper.py                    # CPU
    python benchmarks/matrix_paper.py --device cuda
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

import numpy as np
import torch

from memrnn.experiments.matrix.config import MatrixConfig
from memrnn.experiments.matrix.profiles import SCALES, grid, task_settings
from memrnn.experiments.matrix.run import CellSteps, make_cell_task, model_options
from memrnn.models.registry import build_model_for


def seconds_per_step(config: MatrixConfig, device: torch.device, steps: int) -> float:
    """The median time of one training step of the cell ``config`` on ``device``."""
    task = make_cell_task(config)
    torch.manual_seed(config.seed)
    model = build_model_for(config.model, task, **model_options(config, task)).to(device)
    cell = CellSteps(task, model, config, device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    rng = np.random.default_rng(0)
    times = []
    for step in range(steps + 3):  # three warm-up steps
        if device.type == "cuda":
            torch.cuda.synchronize()
        started = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        cell.loss(cell.training_batch(rng)).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        if step >= 3:
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--device", default="cpu", help="the torch device, e.g. cpu or cuda (default: %(default)s)"
    )
    parser.add_argument("--steps", type=int, default=10, help="timed steps per cell")
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=["reverse_string", "bucket_sort", "rsm_dyck2"],
        help="tasks of the paper profile timed (default: %(default)s)",
    )
    args = parser.parse_args()
    device = torch.device(args.device)
    scale = SCALES["paper"]
    runs = list(grid("paper").points())
    per_model = Counter(point["model"] for point in runs)
    total_steps = scale.settings["steps"]
    print(f"device: {torch.cuda.get_device_name(0) if device.type == 'cuda' else 'cpu'}")
    print(f"paper profile: {len(runs)} runs of {total_steps:,} steps")
    print(f"{'model':<14}{'runs':>6}" + "".join(f"{t[:14]:>16}" for t in args.tasks)
          + f"{'GPU-h' if device.type == 'cuda' else 'CPU-h':>12}")  # fmt: skip
    projected = 0.0
    for model in sorted(per_model):
        seconds = []
        for task in args.tasks:
            point = next((p for p in runs if p["model"] == model and p["task"] == task), None)
            if point is None:
                seconds.append(float("nan"))
                continue
            config = MatrixConfig(**{**scale.settings, **point, **task_settings("paper")(point)})
            try:
                seconds.append(seconds_per_step(config, device, args.steps))
            except RuntimeError as error:  # a task that cannot draw its longest lengths
                print(f"{model} on {task}: {error}")
                seconds.append(float("nan"))
        timed = [s for s in seconds if s == s]
        hours = statistics.mean(timed) * total_steps * per_model[model] / 3600 if timed else 0
        projected += hours
        cells = "".join(f"{s * 1e3:>14.1f}ms" if s == s else f"{'-':>16}" for s in seconds)
        print(f"{model:<14}{per_model[model]:>6}{cells}{hours:>12,.0f}", flush=True)
    print(f"projected, one run at a time: {projected:,.0f} device-hours")


if __name__ == "__main__":
    main()
