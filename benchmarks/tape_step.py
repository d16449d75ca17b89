"""The Tape-RNN's tape step (``memrnn.models.tape_rnn.tape_step``) against the same step
through autograd's own gather, forward and backward, at the laptop profile's sizes.

One step mixes five moves of the whole tape (Delétang et al. 2023): stay, one cell left
or right, and the input's length left or right. memrnn selects the moved rows once and
takes the gradient by selecting the inverse moves; autograd's gradient of a gather
scatters. The two give the same numbers (``tests/models/test_tape_rnn.py``). Both ways
take turns in the same process over ``--rounds`` rounds; the best round of each is
printed, with their ratio.

    python benchmarks/tape_step.py                      # B = 32, c = 8, M = 41 and 101
    python benchmarks/tape_step.py --batch 96 --cells 101 301
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import torch
from torch import Tensor

from memrnn.models.tape_rnn import tape_sources, tape_step


def gathered(tape: Tensor, actions: Tensor, write: Tensor, length: Tensor) -> Tensor:
    """The step through autograd: each move a gather of the written tape, mixed."""
    written = torch.cat([write[:, None], tape[:, 1:]], dim=1)
    size = tape.shape[1]
    cells = torch.arange(size)
    one = torch.ones_like(length)
    shifts = torch.stack([0 * one, -one, one, -length, length], dim=1)
    source = (cells - shifts[..., None]) % size  # (B, 5, M)
    moved = (
        written[:, None]
        .expand(-1, 5, -1, -1)
        .gather(2, source[..., None].expand(-1, -1, -1, tape.shape[2]))
    )
    return torch.einsum("bk,bkmc->bmc", actions, moved)


def _seconds(step: Callable[[], Tensor], repeats: int) -> float:
    """Seconds per forward and backward, over ``repeats`` of them."""
    started = time.perf_counter()
    for _ in range(repeats):
        step().sum().backward()
    return (time.perf_counter() - started) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--batch", type=int, default=32, help="rows B (default: 32)")
    parser.add_argument("--width", type=int, default=8, help="cell width c (default: 8)")
    parser.add_argument("--cells", type=int, nargs="+", default=[41, 101], help="tape sizes M")
    parser.add_argument("--repeats", type=int, default=200, help="steps per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the best kept")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default: 1)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(0)
    print(f"B = {args.batch}, c = {args.width}, {args.threads} thread(s); ms a step, fwd + bwd")
    print("   M  selection  gather  gather / selection")
    for size in args.cells:
        tape = torch.randn(args.batch, size, args.width, generator=gen, requires_grad=True)
        actions = torch.softmax(torch.randn(args.batch, 5, generator=gen), -1).requires_grad_()
        write = torch.randn(args.batch, args.width, generator=gen, requires_grad=True)
        length = torch.randint(1, size, (args.batch,), generator=gen)
        sources = tape_sources(length, size)
        ours = partial(tape_step, tape, actions, write, sources)
        theirs = partial(gathered, tape, actions, write, length)
        torch.testing.assert_close(ours(), theirs())
        best = {"selection": float("inf"), "gather": float("inf")}
        for _ in range(args.rounds):
            best["selection"] = min(best["selection"], _seconds(ours, args.repeats))
            best["gather"] = min(best["gather"], _seconds(theirs, args.repeats))
        ours_ms, theirs_ms = best["selection"] * 1e3, best["gather"] * 1e3
        print(f"{size:4d}  {ours_ms:9.3f}  {theirs_ms:6.3f}  {theirs_ms / ours_ms:.2f}x")


if __name__ == "__main__":
    main()
