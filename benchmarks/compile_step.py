"""``torch.compile`` of the training step of a Stack-LSTM and of the LSTM alone.

For each model at the paper's sizes (128 symbols, embeddings 64, hidden 256, memory
width 256): the graph breaks ``torch._dynamo.explain`` finds in its loss (forward and
cross-entropy), the graphs compiled over ``--lengths`` (a recompile per new length would
give one each; automatic dynamic shapes give two, the first length's static graph and
one for every length after), and the time of one RMSProp step (loss, backward, clipping,
update) eager and with the loss compiled by inductor, best of ``--repeats`` after the
compile, the two ways taking turns over ``--rounds`` rounds. On CUDA (``--device cuda``)
also ``mode="reduce-overhead"`` (CUDA graphs).

A Stack-LSTM's whole sequence is one operator of the graph
(``memrnn.models.controller.ops``); what inductor compiles around it is the embedding,
the output layer and the loss.

    python benchmarks/compile_step.py                     # CPU, B = 10, T = 130
    python benchmarks/compile_step.py --device cuda
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch._dynamo
import torch.nn.functional as F
from torch import Tensor, nn
from torch._dynamo.utils import counters

sys.path.insert(0, str(Path(__file__).parent))
from train_step import IN_VOCAB, OUT_VOCAB

from memrnn.models.transducer import DeepLSTM, MemoryAugmentedLSTM

Loss = Callable[[Tensor, Tensor], Tensor]


def loss_of(model: nn.Module) -> Loss:
    """The mean cross-entropy of ``model``'s logits for token ids against targets."""

    def loss(tokens: Tensor, targets: Tensor) -> Tensor:
        logits = model(tokens)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())

    return loss


def batch(size: int, length: int, device: torch.device) -> tuple[Tensor, Tensor]:
    gen = torch.Generator().manual_seed(length)
    tokens = torch.randint(0, IN_VOCAB, (size, length), generator=gen)
    targets = torch.randint(0, OUT_VOCAB, (size, length), generator=gen)
    return tokens.to(device), targets.to(device)


def step_time(model: nn.Module, loss: Loss, data: tuple[Tensor, Tensor], repeats: int,
              device: torch.device) -> float:  # fmt: skip
    """The best time of ``repeats`` RMSProp steps (after one untimed step)."""
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    best = float("inf")
    for i in range(repeats + 1):
        started = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss(*data).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        if i:
            best = min(best, time.perf_counter() - started)
    return best


def graphs_over_lengths(loss: Loss, args: argparse.Namespace, device: torch.device,
                        **options: str) -> int:  # fmt: skip
    """The graphs compiled while the compiled ``loss`` runs once on each length."""
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(loss, **options)  # type: ignore[call-overload]
    for length in args.lengths:
        compiled(*batch(args.batch, length, device)).backward()
    return int(counters["stats"]["unique_graphs"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="the torch device; on cuda also reduce-overhead (CUDA graphs) (default: %(default)s)",
    )
    parser.add_argument(
        "--batch", type=int, default=10, help="B, sequences in a batch (default: %(default)s)"
    )
    parser.add_argument(
        "--length",
        type=int,
        default=130,
        help="T, the sequence length of the timed steps (default: %(default)s)",
    )
    parser.add_argument(
        "--lengths",
        type=int,
        nargs="+",
        default=[130, 100, 64],
        help="the lengths T the compiled loss runs on, to count its graphs (default: %(default)s)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="timed steps a round, after one untimed; the best is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="rounds in which the modes (eager, inductor, ...) take turns (default: %(default)s)",
    )
    parser.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's)")
    args = parser.parse_args()
    device = torch.device(args.device)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    print(f"device {device}, torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"B = {args.batch}, T = {args.length}")  # fmt: skip
    torch.manual_seed(0)
    models = {
        "LSTM alone": DeepLSTM(IN_VOCAB, OUT_VOCAB, hidden_size=256).to(device),
        "Stack-LSTM": MemoryAugmentedLSTM(IN_VOCAB, OUT_VOCAB, memory="stack").to(device),
    }
    modes = {"eager": None, "inductor": {}}
    if device.type == "cuda":
        modes["reduce-overhead"] = {"mode": "reduce-overhead"}
    data = batch(args.batch, args.length, device)
    print(
        "| model | graph breaks | graphs over T = "
        + ", ".join(map(str, args.lengths))
        + " | "
        + " | ".join(modes)
        + " (ms/step) |"
    )
    print("|---|---:|---:|" + "---:|" * len(modes))
    for name, model in models.items():
        loss = loss_of(model)
        breaks = torch._dynamo.explain(loss)(*data).graph_break_count
        graphs = graphs_over_lengths(loss, args, device)
        torch._dynamo.reset()
        losses = {
            mode: loss if options is None else torch.compile(loss, **options)
            for mode, options in modes.items()
        }
        best = dict.fromkeys(modes, float("inf"))
        for _ in range(args.rounds):
            for mode, fn in losses.items():
                best[mode] = min(best[mode], step_time(model, fn, data, args.repeats, device))
        times = " | ".join(f"{1000 * best[mode]:.1f}" for mode in modes)
        ratio = ", ".join(f"{mode} {best['eager'] / best[mode]:.2f}x" for mode in modes
                          if mode != "eager")  # fmt: skip
        print(f"| {name} | {breaks} | {graphs} | {times} | (speed-up: {ratio})", flush=True)


if __name__ == "__main__":
    main()
