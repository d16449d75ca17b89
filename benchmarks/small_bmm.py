"""The compiled loops' ``small_bmm`` against ATen's ``torch.bmm`` on the fast weights'
small products (Ba et al. 2016, eq. 3: h^T H^T and the weighted sum of the past states).

Below 400 multiply-adds a product, ATen computes ``bmm`` by a plain loop through a
generic accessor; ``small_bmm`` is the compiled loops' copy of that loop, giving the same
bits (``tests/models/controller/test_native.py``). For each number of past states t, both
products are timed the two ways in turns over ``--rounds`` rounds of ``--calls`` calls,
and the best round of each is printed in microseconds a call, with their ratio.

    python benchmarks/small_bmm.py                       # B = 256, R = 32, t in {4, 8, 12}
    python benchmarks/small_bmm.py --batch 32 --past 2 6 10
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import torch
from torch import Tensor

from memrnn.models.controller.native import loops


def _per_call(product: Callable[[Tensor, Tensor], Tensor | None], x: Tensor, y: Tensor,
              calls: int) -> float:  # fmt: skip
    """Microseconds a call over ``calls`` calls."""
    started = time.perf_counter()
    for _ in range(calls):
        product(x, y)
    return (time.perf_counter() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--batch", type=int, default=256, help="B, the products in a batch (default: %(default)s)"
    )
    parser.add_argument("--units", type=int, default=32, help="R, the hidden units")
    parser.add_argument("--past", type=int, nargs="+", default=[4, 8, 12],
                        help="t, the number of past states (R t must stay below 400)")  # fmt: skip
    parser.add_argument("--calls", type=int, default=2000, help="calls a round")
    parser.add_argument(
        "--rounds",
        type=int,
        default=7,
        help="rounds in which the two ways take turns; the best is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch.set_num_threads (default: %(default)s)"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    native = loops(torch.zeros(()))
    if native is None:
        raise SystemExit("the compiled loops are not built here (no compiler, or MEMRNN_NATIVE=0)")
    gen = torch.Generator().manual_seed(0)
    print(f"B = {args.batch}, R = {args.units}, {args.threads} thread(s); us a call, best of "
          f"{args.rounds} rounds of {args.calls}")  # fmt: skip
    print(f"{'product':<28} {'t':>3} {'torch.bmm':>10} {'small_bmm':>10} {'ratio':>6}")
    for past in args.past:
        if args.units * past >= 400:
            raise SystemExit(f"--past {past}: R t = {args.units * past} is not below 400, "
                             "where ATen stops using its small-product loop")  # fmt: skip
        H = torch.randn(args.batch, past, args.units, generator=gen)
        h = torch.randn(args.batch, 1, args.units, generator=gen)
        scores = torch.randn(args.batch, 1, past, generator=gen)
        for name, x, y in (("h^T H^T (B, 1, t)", h, H.transpose(1, 2)),
                           ("sum of past states (B, 1, R)", scores, H)):  # fmt: skip
            assert torch.equal(native.small_bmm(x, y), torch.bmm(x, y))
            best = {"aten": float("inf"), "copy": float("inf")}
            for round_ in range(args.rounds):
                order = ("aten", "copy") if round_ % 2 == 0 else ("copy", "aten")
                for way in order:
                    product = torch.bmm if way == "aten" else native.small_bmm
                    best[way] = min(best[way], _per_call(product, x, y, args.calls))
            print(f"{name:<28} {past:>3} {best['aten']:>10.1f} {best['copy']:>10.1f} "
                  f"{best['copy'] / best['aten']:>6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
