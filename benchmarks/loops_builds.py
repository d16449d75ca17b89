"""Two builds of the compiled time loops (``memrnn/models/controller/loops.cpp``) taking
turns in one process: this checkout's against the file as it was at a git revision.

Timings of whole processes on a shared machine move by tens of percent from one run to
the next; two builds alternating in one process see the same machine. Both builds are
loaded, and ``memrnn.models.controller.native`` hands the models one and then the other,
round after round (the order flipped every round); the medians of the rounds and their
ratio are printed. The workloads:

- ``paper``: a Stack-LSTM's RMSProp step at the paper's sizes (128 symbols, hidden 256,
  memory width 256), B = 10, T = 130, as in ``train_step.py``;
- ``cell``: a matrix cell trained alone (a Stack-LSTM of hidden 32 on reversal of up to
  10 symbols, Adam), as one run of ``batched_runs.py``;
- ``quick``: a training step of Grefenstette et al.'s (2015) quick profile (a Stack-,
  Queue- or DeQue-LSTM of hidden 64 and memory width 64 on reversal at its longest
  training lengths, batch 32, Adam), the run's own batches and loss;
- ``group``: a training step of K Stack-, Queue- or DeQue-LSTMs of the matrix's quick
  size (32 units) trained as one group (``memrnn.models.grouped``), on random tokens of
  ``--length`` steps, Adam;
- ``attention``: the forward and backward of the grouped Transformer's attention
  (``attention.cpp``) on K B sequences of ``--length`` steps, a causal mask.

The loops' Python side is this checkout's. An older file whose loop takes fewer
arguments is called with the leading ones (its ``backward_loop`` took no windows before
the memory's backward step kept to the rows written so far); any other difference in
the arguments is an error.

    python benchmarks/loops_builds.py --against HEAD~1 --work cell --batch 32
    python benchmarks/loops_builds.py --against HEAD~2 --work paper --threads 2 --rounds 8
    python benchmarks/loops_builds.py --against HEAD~1 --work quick --memory deque
    python benchmarks/loops_builds.py --against HEAD~1 --work group --memory queue --length 31
    python benchmarks/loops_builds.py --against HEAD~1 --work attention --length 23
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from batched_runs import _members, one_after_another

from memrnn.experiments.grefenstette2015 import Grefenstette2015Config, TransductionRun
from memrnn.models import build_model
from memrnn.models.controller import native
from memrnn.models.grouped import Grouped
from memrnn.models.positional import causal_bias
from memrnn.models.transducer import MemoryAugmentedLSTM

ROOT = Path(__file__).resolve().parent.parent


def build_at(revision: str, scratch: Path) -> SimpleNamespace:
    """The loops as their sources (``loops.cpp`` and those it links with) were at
    ``revision``, compiled with the same flags."""
    from torch.utils import cpp_extension

    sources = []
    for path in native.SOURCES + native.HEADERS:
        relative = path.relative_to(ROOT).as_posix()
        shown = subprocess.run(["git", "show", f"{revision}:{relative}"], cwd=ROOT,
                               capture_output=True, text=True)  # fmt: skip
        if shown.returncode == 0:  # a file added later is not there
            (scratch / path.name).write_text(shown.stdout)
            if path in native.SOURCES:
                sources.append(str(scratch / path.name))
    name = "memrnn_loops_at_" + "".join(c if c.isalnum() else "_" for c in revision)
    module: ModuleType = cpp_extension.load(name, sources, build_directory=str(scratch),
                                            extra_cflags=list(native.FLAGS))  # fmt: skip
    loops = {loop: _leading(getattr(module, loop)) for loop in ("forward_loop", "backward_loop")}
    if hasattr(module, "attention_forward"):
        loops["attention_forward"] = module.attention_forward
        loops["attention_backward"] = _maskless(module.attention_backward)
    return SimpleNamespace(**loops)


def _leading(loop: Callable[..., Any]) -> Callable[..., Any]:
    """``loop`` given as many of the arguments as it takes: pybind11 names them arg0,
    arg1, ... in its docstring's signature."""
    taken = (loop.__doc__ or "").split("(", 1)[1].split(") ->", 1)[0].count("arg")
    return lambda *args: loop(*args[:taken])


def _maskless(backward: Callable[..., Any]) -> Callable[..., Any]:
    """``attention_backward`` called as now, (qkv, p, g, mask, heads, scale), where it
    took no mask (before it left out the keys the mask hides)."""
    taken = (backward.__doc__ or "").split("(", 1)[1].split(") ->", 1)[0].count("arg")
    if taken == 6:
        return backward
    return lambda qkv, p, g, mask, heads, scale: backward(qkv, p, g, heads, scale)


def paper_step(rounds_of: int) -> Callable[[], None]:
    """``rounds_of`` RMSProp steps of a Stack-LSTM at B = 10, T = 130."""
    torch.manual_seed(0)
    model = MemoryAugmentedLSTM(131, 129, memory="stack")
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    tokens, targets = torch.randint(0, 131, (10, 130)), torch.randint(0, 129, (10, 130))

    def work() -> None:
        for _ in range(rounds_of):
            optimizer.zero_grad(set_to_none=True)
            F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten()).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()

    return work


def cell_steps(rounds_of: int, batch: int) -> Callable[[], None]:
    """``rounds_of`` training steps of one matrix cell alone."""
    sizes = argparse.Namespace(model="stack_lstm", task="reversal", hidden=32, batch=batch,
                               train_max=10, embedding=16, memory_width=16)  # fmt: skip
    cells = _members(1, sizes, torch.device("cpu"))
    return lambda: one_after_another(cells, rounds_of, torch.device("cpu"))


def quick_steps(rounds_of: int, memory: str) -> Callable[[], None]:
    """``rounds_of`` training steps of a quick run of Grefenstette et al. on reversal, its
    curriculum at the longest training lengths (the same batches every round)."""
    torch.manual_seed(0)
    config = dataclasses.replace(Grefenstette2015Config(), task="reversal", model=memory)
    run = TransductionRun(config, torch.device("cpu"))
    run.model.bound.fill_(config.max_length)
    optimizer = torch.optim.Adam(run.model.parameters(), lr=config.lr)
    rng = np.random.default_rng(0)
    batches = [run.training_batch(rng) for _ in range(rounds_of)]

    def work() -> None:
        for batch in batches:
            optimizer.zero_grad(set_to_none=True)
            run.loss(batch).backward()
            optimizer.step()

    return work


def group_steps(rounds_of: int, memory: str, members: int, batch: int,
                length: int) -> Callable[[], None]:  # fmt: skip
    """``rounds_of`` training steps of ``members`` memory LSTMs of 32 units as one group."""
    torch.manual_seed(0)
    group = Grouped([build_model(f"{memory}_lstm", 10, 10, hidden_size=32)
                     for _ in range(members)])  # fmt: skip
    optimizer = torch.optim.Adam(group.parameters(), lr=1e-3)
    tokens = torch.randint(0, 10, (members, batch, length))

    def work() -> None:
        for _ in range(rounds_of):
            optimizer.zero_grad(set_to_none=True)
            group(tokens).square().mean().backward()
            optimizer.step()

    return work


def attention_steps(rounds_of: int, members: int, batch: int,
                    length: int) -> Callable[[], None]:  # fmt: skip
    """``rounds_of`` forward and backward passes of the grouped Transformer's attention
    at the matrix's size (``members`` x ``batch`` sequences, 4 heads of 8 units) with a
    causal mask, by whichever build ``native`` hands out."""
    gen = torch.Generator().manual_seed(0)
    qkv = torch.randn(members * batch, length, 96, generator=gen)
    grad = torch.randn(members * batch, length, 32, generator=gen)
    mask = causal_bias(length).unsqueeze(0)

    def work() -> None:
        build = native._built[0]
        assert build is not None
        for _ in range(rounds_of):
            _, p = build.attention_forward(qkv, mask, 4, 8**-0.5)
            build.attention_backward(qkv, p, grad, mask, 4, 8**-0.5)

    return work


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--against", required=True, help="git revision of the other build")
    parser.add_argument("--work", choices=("paper", "cell", "quick", "group", "attention"),
                        default="cell",
                        help="the workload, as listed above (default: %(default)s)")  # fmt: skip
    parser.add_argument("--batch", type=int, default=32, help="the cell's or a member's batch")
    parser.add_argument("--memory", choices=("stack", "queue", "deque"), default="stack",
                        help="the quick run's or the group's memory")  # fmt: skip
    parser.add_argument("--members", type=int, default=8, help="the group's K")
    parser.add_argument("--length", type=int, default=21, help="the group's T")
    parser.add_argument("--steps", type=int, help="steps a round (paper 5, cell 40, "
                        "quick 10, group 10, attention 10)")  # fmt: skip
    parser.add_argument(
        "--rounds",
        type=int,
        default=20,
        help="rounds in which the builds take turns; medians are reported (default: %(default)s)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch.set_num_threads (default: %(default)s)"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    current = native.loops(torch.zeros(()))
    if current is None:
        raise SystemExit("the compiled loops could not be built here (see the warning)")
    with tempfile.TemporaryDirectory() as scratch:
        builds = {args.against: build_at(args.against, Path(scratch)), "this checkout": current}
        steps = args.steps or {"paper": 5, "cell": 40, "quick": 10, "group": 10,
                               "attention": 10}[args.work]  # fmt: skip
        if args.work == "paper":
            work = paper_step(steps)
        elif args.work == "quick":
            work = quick_steps(steps, args.memory)
        elif args.work == "group":
            work = group_steps(steps, args.memory, args.members, args.batch, args.length)
        elif args.work == "attention":
            work = attention_steps(steps, args.members, args.batch, args.length)
        else:
            work = cell_steps(steps, args.batch)
        times: dict[str, list[float]] = {name: [] for name in builds}
        names = list(builds)
        for turn in range(args.rounds + 1):
            for name in names if turn % 2 == 0 else reversed(names):
                native._built[:] = [builds[name]]
                started = time.perf_counter()
                work()
                if turn > 0:  # the first turn of each warms up
                    times[name].append(time.perf_counter() - started)
        native._built[:] = [current]
    medians = {name: sorted(t)[len(t) // 2] for name, t in times.items()}
    work_name = {
        "quick": f"quick ({args.memory})",
        "group": f"group of {args.members} ({args.memory}, B = {args.batch}, T = {args.length})",
        "attention": f"attention of {args.members} x {args.batch} sequences, T = {args.length}",
    }.get(args.work, args.work)
    print(f"{work_name}, {steps} steps a round, {args.rounds} rounds, {args.threads} thread(s)")
    for name, median in medians.items():
        print(f"{name:>16s}: median {median:.3f} s a round")
    ratio = medians["this checkout"] / medians[args.against]
    print(f"this checkout / {args.against}: {ratio:.3f}")


if __name__ == "__main__":
    main()
