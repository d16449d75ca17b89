"""The ``memrnn`` command line: the only module that parses arguments or prints for people."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import torch

from memrnn import __version__
from memrnn.structures import NeuralQueue, NeuralStack

# Figure 1a of Grefenstette et al. (2015): values 1, 2, 3 with these push and pop strengths.
_FIGURE_1A = {"values": [1.0, 2.0, 3.0], "push": [0.8, 0.5, 0.9], "pop": [0.0, 0.1, 0.9]}


def _demo(_: argparse.Namespace) -> int:
    """Print the paper's Figure 1a example step by step for the stack and the queue."""
    values = torch.tensor(_FIGURE_1A["values"], dtype=torch.float64).view(1, 3, 1)
    push = torch.tensor([_FIGURE_1A["push"]], dtype=torch.float64)
    pop = torch.tensor([_FIGURE_1A["pop"]], dtype=torch.float64)
    for memory in (NeuralStack(), NeuralQueue()):
        print(f"{type(memory).__name__} (Grefenstette et al. 2015, Figure 1a)")
        print("   t  value   push    pop   read   strengths")
        state = memory.initial_state(1, 1, dtype=torch.float64)
        for t in range(3):
            read, state = memory.step(state, values[:, t], push[:, t], pop[:, t])
            strengths = ", ".join(f"{s:.2f}" for s in state.strengths[0].tolist())
            print(
                f"{t + 1:4d} {values[0, t, 0]:6.2f} {push[0, t]:6.2f} {pop[0, t]:6.2f} "
                f"{read[0, 0]:6.2f}   ({strengths})"
            )
        print()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memrnn", description="Memory-augmented recurrent networks and their benchmarks."
    )
    parser.add_argument("--version", action="version", version=f"memrnn {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser("demo", help="run the neural stack and queue on Figure 1a")
    demo.set_defaults(handler=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
