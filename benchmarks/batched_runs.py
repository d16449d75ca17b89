"""Many runs as one: the throughput of N runs trained together as one batched model
(``memrnn.models.grouped.Grouped`` driven by ``memrnn.training.train_group``) against the
same N runs trained one after another by ``memrnn.training.train_loop``.

The runs are cells of the generalisation matrix at its quick size (a Stack-LSTM of 32
hidden units, embeddings 16, memory width 16, on reversal of up to 10 of 8 symbols,
batch 32, Adam): the same seeds and learning rates both ways, the same number of steps, no
evaluation. Throughput is run-steps per second; the ratio is batched over one after
another, measured in the same process, on one thread unless ``--threads`` says otherwise,
with malloc set as the runner's processes set it (``memrnn.runner.allocator``). The last
two columns time one run whose batch holds all N runs' rows: a group still does every
row's arithmetic, so that run's ratio is about the most grouping can give.

On a machine shared with other work one timing can be off by half, so every N is timed
in each of ``--rounds`` rounds, the three ways in turn; the table gives each way's median
seconds, the ratios of the medians, and the lowest and highest of the rounds' own ratios.

    python benchmarks/batched_runs.py                     # N in 1 4 16, CPU
    python benchmarks/batched_runs.py --device cuda       # on a GPU
    python benchmarks/batched_runs.py --device cuda --runs 1 8 32 128 --hidden 256 \
        --embedding 64 --memory-width 256 --batch 10 --train-max 64 \
        --alone-max 8                                                   # T up to 130
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import numpy as np
import torch

from memrnn.experiments.matrix.config import MatrixConfig
from memrnn.experiments.matrix.protocol import protocol
from memrnn.experiments.matrix.run import CellSteps, make_cell_task, model_options
from memrnn.models.grouped import Grouped
from memrnn.models.registry import build_model_for, registered_model
from memrnn.runner.allocator import keep_freed_memory
from memrnn.training import LoopSettings, make_optimizer, train_group, train_loop


def _members(n: int, args: argparse.Namespace, device: torch.device) -> list[CellSteps]:
    """``n`` matrix cells of the same shape: seeds 0 .. n-1, two learning rates."""
    shape: dict[str, Any] = {
        "model": args.model, "task": args.task, "hidden_size": args.hidden,
        "batch_size": args.batch, "train_max": args.train_max,
        # the matrix's vocabulary for the task (8 symbols for reversal), not the task's own
        "vocab_size": protocol(args.task).options.get("vocab_size", 0),
    }  # fmt: skip
    configs = [MatrixConfig(seed=k, lr=(3e-3, 1e-2)[k % 2], **shape) for k in range(n)]
    task = make_cell_task(configs[0])
    cells = []
    for config in configs:
        torch.manual_seed(config.seed)
        sizes = {"embedding": args.embedding, "memory_width": args.memory_width}
        taken = registered_model(config.model).defaults  # the sizes this model has
        sizes = {name: size for name, size in sizes.items() if name in taken}
        # the width (a Transformer's d_model) and a stack's depth, as a matrix cell has them
        options = {**model_options(config, task), **sizes}
        model = build_model_for(config.model, task, **options)
        cells.append(CellSteps(task, model.to(device), config, device))
    return cells


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def one_after_another(cells: list[CellSteps], steps: int, device: torch.device) -> float:
    """Seconds to train each cell alone for ``steps`` steps, one after another, with the
    optimiser a run alone takes (``make_optimizer``)."""
    settings = LoopSettings(steps=steps, monitor="loss")
    _sync(device)
    started = time.perf_counter()
    for cell in cells:
        optimizer = make_optimizer("adam", cell.model.parameters(), cell.config.lr)
        train_loop(
            cell, optimizer, settings,
            data_rng=np.random.default_rng([cell.config.seed, 1]),
            eval_rng=lambda step: np.random.default_rng([0, step]),
        )  # fmt: skip
    _sync(device)
    return time.perf_counter() - started


def batched(cells: list[CellSteps], steps: int, device: torch.device) -> float:
    """Seconds to train the cells together as one batched model for ``steps`` steps."""
    settings = LoopSettings(steps=steps, monitor="loss")
    _sync(device)
    started = time.perf_counter()
    train_group(
        cells, Grouped([cell.model for cell in cells]), settings,
        optimizers=[make_optimizer("adam", c.model.parameters(), c.config.lr) for c in cells],
        data_rngs=[np.random.default_rng([cell.config.seed, 1]) for cell in cells],
        eval_rngs=[lambda step: np.random.default_rng([0, step]) for _ in cells],
    )  # fmt: skip
    _sync(device)
    return time.perf_counter() - started


def one_model_of_all_rows(n: int, args: argparse.Namespace, device: torch.device) -> float:
    """Seconds to train one run whose batch holds the rows of n runs (n times the batch)
    for the same steps. A group shares the per-operation costs of its members but still
    does every row's arithmetic, so this is about the least it can take."""
    wide = argparse.Namespace(**{**vars(args), "batch": args.batch * n})
    return one_after_another(_members(1, wide, device), args.steps, device)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs",
        type=int,
        nargs="+",
        default=[1, 4, 16],
        help="N, runs trained together; a row for each (default: %(default)s)",
    )
    parser.add_argument("--steps", type=int, default=40, help="training steps timed per run")
    parser.add_argument(
        "--model",
        default="stack_lstm",
        help="the runs' model, a model registry name (e.g. stack_lstm, gru) (default: %(default)s)",
    )
    parser.add_argument(
        "--task",
        default="reversal",
        help="the runs' task, a task registry name (e.g. reversal) (default: %(default)s)",
    )
    parser.add_argument(
        "--hidden", type=int, default=32, help="the models' hidden units (default: %(default)s)"
    )
    parser.add_argument(
        "--embedding",
        type=int,
        default=16,
        help="the models' embeddings, where the model has them (default: %(default)s)",
    )
    parser.add_argument(
        "--memory-width",
        type=int,
        default=16,
        help="m, the memory's width, where the model has a memory (default: %(default)s)",
    )
    parser.add_argument(
        "--batch", type=int, default=32, help="B, sequences in a run's batch (default: %(default)s)"
    )
    parser.add_argument(
        "--train-max",
        type=int,
        default=10,
        help="the longest training length (default: %(default)s)",
    )
    parser.add_argument(
        "--device", default="cpu", help="the torch device, e.g. cpu or cuda (default: %(default)s)"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch.set_num_threads (default: %(default)s)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per N as well")
    parser.add_argument(
        "--rounds", type=int, default=3,
        help="rounds per N, the three ways in turn within each; medians are reported",
    )  # fmt: skip
    parser.add_argument(
        "--alone-max", type=int, default=0,
        help="time this many runs one after another once a round and scale to each N (0: "
        "time all N runs for each N)",
    )  # fmt: skip
    parser.add_argument(
        "--default-malloc", action="store_true",
        help="leave glibc's malloc as it is (the runner's processes keep freed memory)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds: at least 1, got {args.rounds}")
    if not args.default_malloc:
        keep_freed_memory()
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    print(
        f"{args.model} on {args.task} (lengths up to {args.train_max}), hidden {args.hidden}, "
        f"embedding {args.embedding}, memory width {args.memory_width}, batch {args.batch}, "
        f"{args.steps} steps per run, {device}, {args.threads} thread(s)"
    )
    print(f"{'N':>4} {'alone s':>9} {'batched s':>10} {'alone run-steps/s':>18} "
          f"{'batched run-steps/s':>20} {'ratio':>6} {'rounds':>11} "
          f"{'one model of N B rows s':>24} {'its ratio':>9}")  # fmt: skip
    batched(_members(2, args, device), 3, device)  # warm-up: first calls allocate and load
    timed: dict[int, list[tuple[float, float, float]]] = {n: [] for n in args.runs}
    for _ in range(args.rounds):
        per_run = None  # with --alone-max: one run alone, timed once a round
        if args.alone_max:  # runs alone share nothing: that many give the time of any N
            cells = _members(args.alone_max, args, device)
            per_run = one_after_another(cells, args.steps, device) / args.alone_max
        for n in args.runs:
            if per_run is None:
                alone = one_after_another(_members(n, args, device), args.steps, device)
            else:
                alone = per_run * n
            together = batched(_members(n, args, device), args.steps, device)
            timed[n].append((alone, together, one_model_of_all_rows(n, args, device)))
    for n, rounds in timed.items():
        alone, together, wide = (statistics.median(r[way] for r in rounds) for way in range(3))
        ratios = [r[0] / r[1] for r in rounds]
        work = n * args.steps
        print(f"{n:>4} {alone:>9.2f} {together:>10.2f} {work / alone:>18.1f} "
              f"{work / together:>20.1f} {alone / together:>6.2f} "
              f"{min(ratios):>5.2f}-{max(ratios):<5.2f} {wide:>24.2f} "
              f"{alone / wide:>9.2f}")  # fmt: skip
        if args.json:
            row = {"runs": n, "alone_s": alone, "batched_s": together, "ratio": alone / together,
                   "round_ratios": ratios, "one_model_s": wide,
                   "one_model_ratio": alone / wide}  # fmt: skip
            print(json.dumps(row))


if __name__ == "__main__":
    main()
