"""Speed and memory of the vectorised neural stack against a loop over depth.

The baseline is the stack as public implementations commonly write it: per step, a
Python loop over the rows from the top down, with autograd tracking every scalar-row
operation. The vectorised ``NeuralStack.run`` does a fixed number of tensor operations
per step whatever the depth.

Each (implementation, T) is measured in a fresh subprocess so that peak memory is that
run's own: on CPU the growth of the process's peak resident set over the forward and
backward passes, on CUDA ``torch.cuda.max_memory_allocated``. Times are medians of the
timed repeats after one warm-up, divided by B to give seconds per sequence.

    python benchmarks/structures.py                     # B=32, m=64, T in 64..512, CPU
    python benchmarks/structures.py --device cuda
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import time

import torch
from torch import Tensor

from memrnn.structures import NeuralStack


def loop_stack(values: Tensor, push: Tensor, pop: Tensor) -> Tensor:
    """The neural stack with a Python loop over depth (the common public formulation)."""
    strengths: list[Tensor] = []  # one (B,) tensor per row, bottom first
    rows: list[Tensor] = []
    reads = []
    for t in range(values.shape[1]):
        remaining = pop[:, t]  # pop from the top down
        popped = []
        for s in reversed(strengths):
            popped.append(torch.relu(s - remaining))
            remaining = torch.relu(remaining - s)
        strengths = [*reversed(popped), push[:, t]]
        rows.append(values[:, t])
        room = torch.ones_like(push[:, t])  # read one unit from the top down
        read = torch.zeros_like(values[:, t])
        for s, v in zip(reversed(strengths), reversed(rows), strict=True):
            read = read + torch.minimum(s, room).unsqueeze(1) * v
            room = torch.relu(room - s)
        reads.append(read)
    return torch.stack(reads, dim=1)


IMPLEMENTATIONS = {"vectorised": NeuralStack(validate=False).run, "loop": loop_stack}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def measure_one(impl: str, batch: int, steps: int, width: int, repeats: int, device: str) -> dict:
    """Time forward + backward of one implementation; returns a JSON-able record."""
    dev = torch.device(device)
    fn = IMPLEMENTATIONS[impl]

    def inputs(steps: int) -> list[Tensor]:
        gen = torch.Generator().manual_seed(0)
        return [
            torch.randn(batch, steps, width, generator=gen).to(dev).requires_grad_(),
            torch.rand(batch, steps, generator=gen).to(dev).requires_grad_(),
            torch.rand(batch, steps, generator=gen).to(dev).requires_grad_(),
            torch.randn(batch, steps, width, generator=gen).to(dev),
        ]

    def forward_backward(values: Tensor, push: Tensor, pop: Tensor, grad: Tensor) -> None:
        torch.autograd.backward(fn(values, push, pop), grad)
        for x in (values, push, pop):
            x.grad = None

    forward_backward(*inputs(4))  # one-time initialisation stays out of the peak
    args = inputs(steps)
    _sync(dev)
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats(dev)
        base = torch.cuda.memory_allocated(dev)
    else:
        base = _rss_bytes()
    forward_backward(*args)  # warm-up, and the peak-memory measurement
    _sync(dev)
    if dev.type == "cuda":
        peak = torch.cuda.max_memory_allocated(dev) - base
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        forward_backward(*args)
        _sync(dev)
        times.append(time.perf_counter() - start)
    return {"impl": impl, "T": steps, "seconds": statistics.median(times), "peak_bytes": peak}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--batch", type=int, default=32, help="B, sequences in a batch (default: %(default)s)"
    )
    parser.add_argument(
        "--width",
        type=int,
        default=64,
        help="m, the width of the stack's values (default: %(default)s)",
    )
    parser.add_argument(
        "--steps",
        type=int,
        nargs="+",
        default=[64, 128, 256, 512],
        help="T, the sequence lengths; a row for each (default: %(default)s)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="timed repeats after a warm-up; the median is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--device", default="cpu", help="the torch device, e.g. cpu or cuda (default: %(default)s)"
    )
    parser.add_argument("--one", choices=list(IMPLEMENTATIONS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # child process: one measurement, printed as JSON
        t = args.steps[0]
        print(
            json.dumps(measure_one(args.one, args.batch, t, args.width, args.repeats, args.device))
        )
        return

    name = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else platform.processor()
    print(f"# neural stack, forward + backward, B={args.batch}, m={args.width}, float32")
    print(
        f"# device {args.device} ({name or platform.machine()}), torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, median of {args.repeats} after a warm-up"
    )
    print()
    print(
        "|    T | vectorised ms/seq | loop ms/seq | speed-up | vectorised peak MiB "
        "| loop peak MiB | memory ratio |"
    )
    print(
        "|-----:|------------------:|------------:|---------:|--------------------:"
        "|--------------:|-------------:|"
    )
    for steps in args.steps:
        rec = {}
        for impl in IMPLEMENTATIONS:
            cmd = [sys.executable, __file__, "--one", impl, "--steps", str(steps),
                   "--batch", str(args.batch), "--width", str(args.width),
                   "--repeats", str(args.repeats), "--device", args.device]  # fmt: skip
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            rec[impl] = json.loads(out.strip().splitlines()[-1])
        vec, loop = rec["vectorised"], rec["loop"]
        ms = [1e3 * r["seconds"] / args.batch for r in (vec, loop)]
        mib = [r["peak_bytes"] / 2**20 for r in (vec, loop)]
        print(f"| {steps:4d} | {ms[0]:17.3f} | {ms[1]:11.2f} | {ms[1] / ms[0]:7.1f}x "
              f"| {mib[0]:19.1f} | {mib[1]:13.1f} | {mib[1] / max(mib[0], 1e-9):11.2f}x |",
              flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
