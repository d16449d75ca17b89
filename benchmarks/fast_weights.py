"""Fast weights: the attention form against the explicit R x R matrix form.

For each sequence length T, one Adam step (forward, backward, update) of a Fast Weights
RNN with R = 100 units on random tokens, in both forms, timed as the best of a few
repeats after a warm-up; and the memory kept for the backward pass, counted as the bytes
of the distinct tensors autograd saves (``saved_tensors_hooks``), on CUDA also the peak
allocated memory. Both forms compute the same numbers (the tests check that); the matrix
form keeps a B x R x R matrix per step.

    python benchmarks/fast_weights.py                     # R = 100, T in {11, 51, 201}, CPU
    python benchmarks/fast_weights.py --device cuda --batch 128
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import Tensor

from memrnn.models.fast_weights import FastWeightsRNN


def saved_bytes(model: FastWeightsRNN, tokens: Tensor) -> tuple[Tensor, int]:
    """The output and the bytes of the distinct storages autograd keeps for backward."""
    storages: dict[int, int] = {}

    def pack(tensor: Tensor) -> Tensor:
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = model.features(tokens)
    return out, sum(storages.values())


def measure(
    form: str, hidden: int, length: int, batch: int, device: torch.device, repeats: int
) -> dict[str, float]:
    torch.manual_seed(0)
    model = FastWeightsRNN(37, 10, hidden, form=form).to(device)  # type: ignore[arg-type]
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, 37, (batch, length), device=device)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        model.features(tokens).square().mean().backward()
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()

    step()  # warm-up
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    out, saved = saved_bytes(model, tokens)
    del out
    peak = float("nan")
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        step()
        peak = torch.cuda.max_memory_allocated(device) / 2**20
    return {"seconds": min(times), "saved_mib": saved / 2**20, "peak_mib": peak}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--hidden",
        type=int,
        default=100,
        help="R, the fast weights RNN's units (default: %(default)s)",
    )
    parser.add_argument(
        "--lengths",
        type=int,
        nargs="+",
        default=[11, 51, 201],
        help="T, the sequence lengths; a row for each (default: %(default)s)",
    )
    parser.add_argument(
        "--batch", type=int, default=128, help="B, sequences in a batch (default: %(default)s)"
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
    print(
        f"device {device}, torch {torch.__version__}, threads {torch.get_num_threads()}, "
        f"R = {args.hidden}, B = {args.batch}"
    )
    print(
        "| T | attention steps/s | matrix steps/s | speed-up | attention saved (MiB) "
        "| matrix saved (MiB) | memory ratio | attention peak (MiB) | matrix peak (MiB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for length in args.lengths:
        a = measure("attention", args.hidden, length, args.batch, device, args.repeats)
        m = measure("matrix", args.hidden, length, args.batch, device, args.repeats)
        print(
            f"| {length} | {1 / a['seconds']:.2f} | {1 / m['seconds']:.2f} | "
            f"{m['seconds'] / a['seconds']:.2f}x | {a['saved_mib']:.1f} | {m['saved_mib']:.1f} | "
            f"{m['saved_mib'] / a['saved_mib']:.1f}x | {a['peak_mib']:.1f} | {m['peak_mib']:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
