"""Training throughput of the transduction models at the paper's sizes.

Tokens per second (batch x sequence length, the whole joint sequence ``<s> source |||
target </s>``) of RMSProp steps of the Stack-, Queue- and DeQue-LSTM and of a 1-layer
Deep LSTM (the baseline's cost without a memory), at the paper's sizes: 128 symbols,
embeddings 64, memory width 256, hidden 256 and 512, batch 10, and 131 steps (a source of
64, the longest trained). Best of a few timed steps after a warm-up, on the device you
name; ratios are against the Deep LSTM in the same run.

    python benchmarks/controllers.py                   # CPU
    python benchmarks/controllers.py --device cuda --batch 10 256
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from train_step import seconds_per_step

from memrnn.models.transducer import DeepLSTM, MemoryAugmentedLSTM


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--hidden",
        type=int,
        nargs="+",
        default=[256, 512],
        help="the hidden units; rows for each (default: %(default)s)",
    )
    parser.add_argument(
        "--batch",
        type=int,
        nargs="+",
        default=[10],
        help="B, sequences in a batch; rows for each (default: %(default)s)",
    )
    parser.add_argument(
        "--length", type=int, default=131, help="T, the sequence length (default: %(default)s)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="timed steps after a warm-up; the best is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--device", default="cpu", help="the torch device, e.g. cpu or cuda (default: %(default)s)"
    )
    args = parser.parse_args()
    device = torch.device(args.device)
    print(f"device {device}, torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"T = {args.length}")  # fmt: skip
    print("| hidden | batch | model | ms/step | tokens/s | x Deep LSTM time |")
    print("|---:|---:|---|---:|---:|---:|")
    for hidden in args.hidden:
        for batch in args.batch:
            torch.manual_seed(0)
            models = {
                "Deep LSTM (1 layer)": DeepLSTM(131, 129, hidden_size=hidden),
                **{
                    f"{kind.capitalize()}-LSTM": MemoryAugmentedLSTM(
                        131,
                        129,
                        memory=kind,
                        hidden_size=hidden,  # type: ignore[arg-type]
                    )
                    for kind in ("stack", "queue", "deque")
                },
            }
            base = None
            for name, model in models.items():
                seconds = seconds_per_step(
                    lambda x, m=model: m(x),
                    model.to(device),
                    batch,
                    args.length,
                    device,
                    args.repeats,
                )
                base = base or seconds
                print(
                    f"| {hidden} | {batch} | {name} | {1000 * seconds:.1f} | "
                    f"{batch * args.length / seconds:,.0f} | {seconds / base:.1f}x |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
