"""Training-step time and memory of Stack-, Queue- and DeQue-LSTMs against the LSTM alone.

Speed: one RMSProp step (forward, backward, clipping, update) on token ids, at the
paper's sizes (128 symbols, embeddings 64, hidden 256, memory width 256; ``--hidden``,
``--embedding`` and ``--memory-width`` set others), for

- the LSTM alone (memrnn's 1-layer ``DeepLSTM``: the controller without its memory);
- memrnn's Stack-, Queue- and DeQue-LSTM (the whole-sequence path,
  ``memrnn.models.controller.fused``);
- memrnn's Stack-LSTM run step by step under plain autograd (``stepwise=True``);
- the two naive Stack-LSTMs of ``benchmarks/naive_stacks.py``: values re-stacked every
  step, and the literal loop over depth;
- the Stack-LSTM's matrix products alone, a floor for any implementation of it, and on a
  CPU the same products through oneDNN's linear layer, which on some CPUs multiplies
  these small matrices faster than MKL (``products_alone``).

Each is the best of its timed steps after a warm-up; the models take turns over
``--rounds`` rounds of ``--repeats`` steps each, so that a load from other work on the
machine falls on all of them alike; ratios are against the LSTM alone in the same run.
A naive model whose autograd would keep more than ``--max-gb`` of value copies is
skipped and says so. The naive models are checked first to give memrnn's logits.

Memory (``--memory``): peak memory of forward + backward of the stack alone (values, push
and pop given) at B = 8, m = 256 and growing T: memrnn's ``NeuralStack.run``, memrnn's
per-step ``NeuralStack.step`` under autograd, and plain autograd over the re-stacking
stack. On CUDA it is ``torch.cuda.max_memory_allocated``; on a CPU the growth of the peak
resident set of a fresh process.

    python benchmarks/train_step.py                       # CPU speed table
    python benchmarks/train_step.py --memory              # CPU memory table
    python benchmarks/train_step.py --device cuda         # both on a GPU: add --memory
    python benchmarks/train_step.py --batch 10 --length 130 --only fused --rounds 5
    python benchmarks/train_step.py --batch 32 --length 66 --hidden 64 --embedding 32 \
        --memory-width 64 --only fused --threads 1 --rounds 5   # Grefenstette et al.'s quick
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

sys.path.insert(0, str(Path(__file__).parent))
from naive_stacks import NaiveStackLSTM, Variant, copy_weights, restacking_step, same_logits

from memrnn.models.controller.network import MemoryKind
from memrnn.models.transducer import DeepLSTM, MemoryAugmentedLSTM
from memrnn.structures import NeuralStack

IN_VOCAB, OUT_VOCAB = 131, 129


class Sizes(NamedTuple):
    """The models' sizes for the speed table (the paper's by default)."""

    hidden: int
    embedding: int
    width: int  # m


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def seconds_per_step(forward: Callable[[Tensor], Tensor], model: nn.Module, batch: int,
                     length: int, device: torch.device, repeats: int) -> float:  # fmt: skip
    """The best time of one RMSProp step of ``forward`` (token ids -> logits)."""
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, IN_VOCAB, (batch, length), device=device)
    targets = torch.randint(0, OUT_VOCAB, (batch, length), device=device)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        logits = forward(tokens)
        F.cross_entropy(logits.flatten(0, 1), targets.flatten()).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        _sync(device)

    return best_time(step, repeats)


def best_time(work: Callable[[], None], repeats: int) -> float:
    """The best of ``repeats`` timed calls of ``work``, after one untimed warm-up call."""
    work()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def _models(
    device: torch.device, sizes: Sizes
) -> dict[str, tuple[nn.Module, Callable[[Tensor], Tensor]]]:
    torch.manual_seed(0)
    hid, emb, width = sizes
    lstm = DeepLSTM(IN_VOCAB, OUT_VOCAB, hidden_size=hid, embedding=emb).to(device)
    kinds: tuple[MemoryKind, ...] = ("stack", "queue", "deque")
    memories = {
        kind: MemoryAugmentedLSTM(IN_VOCAB, OUT_VOCAB, memory=kind, hidden_size=hid,
                                  embedding=emb, memory_width=width).to(device)
        for kind in kinds
    }  # fmt: skip
    stack = memories["stack"]
    naive = {}
    variants: tuple[Variant, ...] = ("restacking", "depth_loop")
    for variant in variants:
        model = NaiveStackLSTM(IN_VOCAB, OUT_VOCAB, variant, hidden=hid, embedding=emb,
                               memory_width=width).to(device)  # fmt: skip
        copy_weights(stack, model)
        naive[variant] = model
    tokens = torch.randint(0, IN_VOCAB, (3, 12), device=device)
    for variant, model in naive.items():
        if not same_logits(model(tokens), stack(tokens)):
            raise AssertionError(f"the {variant} Stack-LSTM does not compute memrnn's logits")
    return {
        "LSTM alone": (lstm, lstm),
        "memrnn Stack-LSTM": (stack, stack),
        "memrnn Queue-LSTM": (memories["queue"], memories["queue"]),
        "memrnn DeQue-LSTM": (memories["deque"], memories["deque"]),
        "memrnn Stack-LSTM, per-step autograd": (stack, lambda x: stepwise(stack, x)),
        "re-stacking values": (naive["restacking"], naive["restacking"]),
        "literal depth loop": (naive["depth_loop"], naive["depth_loop"]),
    }


def products_alone(batch: int, length: int, device: torch.device, repeats: int,
                   sizes: Sizes, onednn: bool = False) -> float:  # fmt: skip
    """The best time of the Stack-LSTM's matrix products alone, forward and backward.

    Per step: the cell's product on [r_{t-1} ; h_{t-1}] (width + hidden -> 4 hidden), the
    memory projections (hidden -> width + 2), the read, and their backward products;
    then the weight gradients over all steps. Nothing else of the step: a floor for any
    implementation of the same model that keeps its arithmetic. ``onednn``: the per-step
    products of the cell and the projections through oneDNN's linear layer (the kernels
    of the LSTM alone) instead of ATen's ``addmm`` and ``mm`` (MKL on x86), with each
    weight transposed once for the backward's; the reads and the weight gradients as
    before.
    """
    gen = torch.Generator(device=device).manual_seed(0)

    def rand(*size: int) -> Tensor:
        return torch.randn(*size, generator=gen, device=device)

    hid, width, gates = sizes.hidden, sizes.width, 4 * sizes.hidden
    w_rec, w_q = rand(gates, width + hid), rand(width + 2, hid)
    rh, z, q = rand(batch, width + hid), rand(batch, gates), rand(batch, width + 2)
    h, values, weights = rand(batch, hid), rand(batch, length, width), rand(batch, 1, length)
    all_z, all_rh = rand(length * batch, gates), rand(length * batch, width + hid)

    if onednn:
        w_rec_t, w_q_t = w_rec.t().contiguous(), w_q.t().contiguous()

        def forward_products() -> None:
            onednn_product(rh, w_rec).add_(z)
            onednn_product(h, w_q).add_(q)

        def backward_products() -> None:
            onednn_product(z, w_rec_t)
            onednn_product(q, w_q_t)
    else:

        def forward_products() -> None:
            torch.addmm(z, rh, w_rec.t())
            torch.addmm(q, h, w_q.t())

        def backward_products() -> None:
            z @ w_rec
            q @ w_q

    def run() -> None:
        for products in (forward_products, backward_products):
            for _ in range(length):
                products()
                torch.bmm(weights, values)
        all_z.t() @ all_rh
        _sync(device)

    return best_time(run, repeats)


def onednn_product(x: Tensor, w: Tensor) -> Tensor:
    """x w^T by oneDNN's linear layer, for w (out, in) as ``F.linear`` takes it."""
    return torch.ops.mkldnn._linear_pointwise(x, w, None, "none", [], "")


def onednn_linear(device: torch.device) -> bool:
    """Whether this torch has oneDNN's linear layer for ``device`` (its CPU builds), checked
    to give ATen's products to float rounding."""
    if not (device.type == "cpu" and torch.backends.mkldnn.is_available()
            and hasattr(torch.ops.mkldnn, "_linear_pointwise")):  # fmt: skip
        return False
    x, w = torch.randn(10, 512), torch.randn(1024, 512)
    if not torch.allclose(onednn_product(x, w), x @ w.t(), rtol=1e-4, atol=1e-3):
        raise AssertionError("oneDNN's linear layer does not give ATen's product")
    return True


def stepwise(model: MemoryAugmentedLSTM, tokens: Tensor) -> Tensor:
    """``model``'s logits through its per-step reference path."""
    core = model.core(model.embed(tokens), stepwise=True)
    out: Tensor = model.output(torch.tanh(core))
    return out


# ``--only`` picks rows by these groups (the LSTM alone and the floors are always timed).
GROUPS = {
    "fused": ("memrnn Stack-LSTM", "memrnn Queue-LSTM", "memrnn DeQue-LSTM"),
    "stepwise": ("memrnn Stack-LSTM, per-step autograd",),
    "naive": ("re-stacking values", "literal depth loop"),
}
FLOOR = "Stack-LSTM's matrix products alone (a floor)"
FLOOR_ONEDNN = "the same products through oneDNN (a floor)"


def speed(args: argparse.Namespace, device: torch.device) -> None:
    sizes = Sizes(args.hidden, args.embedding, args.memory_width)
    models = _models(device, sizes)
    wanted = {"LSTM alone", *(name for group in args.only for name in GROUPS[group])}
    floors = {FLOOR: False, FLOOR_ONEDNN: True} if onednn_linear(device) else {FLOOR: False}
    print("| B | T | model | ms/step | tokens/s | x LSTM alone |")
    print("|---:|---:|---|---:|---:|---:|")
    for batch in args.batch:
        for length in args.length:
            best: dict[str, float] = {}
            for _ in range(args.rounds):
                for name, (model, forward) in models.items():
                    copies_gb = 4 * batch * sizes.width * length * length / 2 / 1e9
                    if name not in wanted or (
                        name == "re-stacking values" and copies_gb > args.max_gb
                    ):
                        continue
                    slow = name in GROUPS["naive"]
                    repeats = 1 if slow else args.repeats
                    seconds = seconds_per_step(forward, model, batch, length, device, repeats)
                    best[name] = min(seconds, best.get(name, seconds))
                for floor, onednn in floors.items():
                    seconds = products_alone(batch, length, device, args.repeats, sizes, onednn)
                    best[floor] = min(seconds, best.get(floor, seconds))
            base = best["LSTM alone"]
            for name in (*models, FLOOR, FLOOR_ONEDNN):
                if name in best:
                    _row(batch, length, name, best[name], base)
                elif name == "re-stacking values" and name in wanted:
                    print(f"| {batch} | {length} | {name} | skipped: would keep more than "
                          f"{args.max_gb:g} GB of value copies | | |")  # fmt: skip


def _row(batch: int, length: int, name: str, seconds: float, base: float) -> None:
    rate = batch * length / seconds
    print(f"| {batch} | {length} | {name} | {1000 * seconds:.1f} | {rate:,.0f} | "
          f"{seconds / base:.2f} |", flush=True)  # fmt: skip


def peak_bytes(variant: str, length: int, device: torch.device) -> int:
    """Peak memory of forward + backward of the stack alone, beyond its inputs."""
    gen = torch.Generator().manual_seed(0)
    batch, width = 8, 256
    values = torch.randn(batch, length, width, generator=gen).to(device).requires_grad_()
    push = torch.rand(batch, length, generator=gen).to(device).requires_grad_()
    pop = torch.rand(batch, length, generator=gen).to(device).requires_grad_()
    probe = torch.randn(batch, length, width, generator=gen).to(device)
    _sync(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
    else:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    stack = NeuralStack(validate=False)
    if variant == "memrnn run":
        reads = stack.run(values, push, pop)
    elif variant == "memrnn per-step autograd":
        state = stack.initial_state(batch, width, device=device, capacity=length)
        steps = []
        for t in range(length):
            read, state = stack.step(state, values[:, t], push[:, t], pop[:, t])
            steps.append(read)
        reads = torch.stack(steps, dim=1)
    else:
        rows, s, steps = values[:, :0], push[:, :0], []
        for t in range(length):
            rows, s, read = restacking_step(rows, s, values[:, t], push[:, t], pop[:, t])
            steps.append(read)
        reads = torch.stack(steps, dim=1)
    (reads * probe).sum().backward()
    _sync(device)
    if device.type == "cuda":
        return int(torch.cuda.max_memory_allocated(device) - before)
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before)


def memory(args: argparse.Namespace, device: torch.device) -> None:
    variants = ("memrnn run", "memrnn per-step autograd", "plain autograd, re-stacking")
    print("Peak memory of forward + backward of the stack alone, B = 8, m = 256 (MB)")
    print("| T | " + " | ".join(variants) + " | re-stacking / memrnn run |")
    print("|---:|" + "---:|" * (len(variants) + 1))
    for length in args.memory_length:
        peaks = []
        for variant in variants:
            if device.type == "cuda":
                peaks.append(peak_bytes(variant, length, device))
            else:  # a fresh process, so that one variant's peak does not hide another's
                out = subprocess.run(
                    [sys.executable, __file__, "--peak", variant, str(length)],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                peaks.append(json.loads(out.stdout)["bytes"])
        cells = " | ".join(f"{p / 1e6:,.1f}" for p in peaks)
        print(f"| {length} | {cells} | {peaks[2] / max(peaks[0], 1):.1f}x |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--device", default="cpu", help="the torch device, e.g. cpu or cuda (default: %(default)s)"
    )
    parser.add_argument(
        "--batch",
        type=int,
        nargs="+",
        default=[10, 256],
        help="the speed table's B, sequences in a batch; rows for each (default: %(default)s)",
    )
    parser.add_argument(
        "--length",
        type=int,
        nargs="+",
        default=[64, 130, 256],
        help="the speed table's T, sequence lengths; rows for each (default: %(default)s)",
    )
    parser.add_argument("--hidden", type=int, default=256, help="the speed table's hidden units")
    parser.add_argument("--embedding", type=int, default=64, help="the speed table's embeddings")
    parser.add_argument("--memory-width", type=int, default=256, help="the speed table's m")
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="timed steps a round (naive models: 1); the best is reported (default: %(default)s)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="turns each model takes")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=sorted(GROUPS),
        default=sorted(GROUPS),
        help="the rows to time besides the LSTM alone and the floor",
    )
    parser.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's)")
    parser.add_argument(
        "--max-gb",
        type=float,
        default=4.0,
        help="skip re-stacking beyond this many GB of value copies (default: %(default)s)",
    )
    parser.add_argument("--memory", action="store_true", help="the memory table instead")
    parser.add_argument(
        "--memory-length",
        type=int,
        nargs="+",
        default=[128, 256, 512, 1024],
        help="the memory table's T (default: %(default)s)",
    )
    parser.add_argument("--peak", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    device = torch.device(args.device)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    if args.peak:
        print(json.dumps({"bytes": peak_bytes(args.peak[0], int(args.peak[1]), device)}))
        return
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"device {device} ({name}), torch {torch.__version__}, threads "
          f"{torch.get_num_threads()}")  # fmt: skip
    if args.memory:
        memory(args, device)
    else:
        speed(args, device)


if __name__ == "__main__":
    main()
