"""Training throughput of the Dyck-(k,m) LSTM language model (Hewitt et al. 2020).

Tokens per second of Adam steps on Dyck-(k,m) training strings with the seed's sizes
(embedding 2k + 10, hidden 3m ceil(log2 k) - m), at the paper's batch of 10 strings and
at larger batches, on the device you name. Padding tokens are not counted.

    python benchmarks/dyck_lm.py                        # k in {2, 8, 32, 128}, m = 3, CPU
    python benchmarks/dyck_lm.py --device cuda --batches 10 100 1000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from memrnn.experiments.hewitt2020 import lstm_units
from memrnn.languages.dyck import make_splits
from memrnn.models.lstm_lm import LSTMLanguageModel
from memrnn.tasks.dyck_lm import PAD, batches, loss


def tokens_per_second(k: int, m: int, batch: int, device: torch.device, seconds: float) -> float:
    """Train for about ``seconds`` after a warm-up; real tokens processed per second."""
    strings = list(make_splits(k, m, 0, 200_000, 100, 100).train)
    torch.manual_seed(0)
    model = LSTMLanguageModel(2 * k + 1, 2 * k + 10, lstm_units(k, m)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)

    def epoch() -> tuple[int, float]:
        counted, started = 0, time.perf_counter()
        for tokens in batches(strings, batch, rng):
            tokens = tokens.to(device)
            optimizer.zero_grad(set_to_none=True)
            loss(model, tokens).backward()
            optimizer.step()
            counted += int((tokens != PAD).sum())
            if time.perf_counter() - started > seconds:
                break
        if device.type == "cuda":
            torch.cuda.synchronize()
        return counted, time.perf_counter() - started

    epoch()  # warm-up
    counted, elapsed = epoch()
    return counted / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--ks",
        type=int,
        nargs="+",
        default=[2, 8, 32, 128],
        help="k, the bracket types; a row for each (default: %(default)s)",
    )
    parser.add_argument(
        "--m", type=int, default=3, help="m, the bound on the nesting depth (default: %(default)s)"
    )
    parser.add_argument(
        "--batches",
        type=int,
        nargs="+",
        default=[10, 100],
        help="strings in a batch; a column for each (default: %(default)s)",
    )
    parser.add_argument(
        "--device", default="cpu", help="the torch device, e.g. cpu or cuda (default: %(default)s)"
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="up to about these seconds timed per k and batch, after a warm-up "
        "(default: %(default)s)",
    )
    args = parser.parse_args()
    device = torch.device(args.device)
    print(f"# Dyck LSTM LM training tokens/s on {device}, torch {torch.__version__}, m = {args.m}")
    print()
    print("| k | hidden | " + " | ".join(f"batch {b}" for b in args.batches) + " |")
    print("|---:|---:|" + "---:|" * len(args.batches))
    for k in args.ks:
        rates = [tokens_per_second(k, args.m, b, device, args.seconds) for b in args.batches]
        shown = " | ".join(f"{r:,.0f}" for r in rates)
        print(f"| {k} | {lstm_units(k, args.m)} | {shown} |", flush=True)


if __name__ == "__main__":
    main()
