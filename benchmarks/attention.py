"""The grouped Transformer's self-attention: the compiled kernels against ATen's operations.

A training step (forward, backward, Adam) of K causal Transformers of the matrix's quick
size (d_model 32, 2 layers of 4 heads, feed-forward 64, no dropout) trained as one group
(``memrnn.models.grouped``) on random tokens, timed with the attention compiled
(``attention.cpp``) and with ATen's operations (``reference_attention``, as where nothing
compiles), in turns in one process, and the attention alone (forward and backward of
``self_attention`` on the group's projections). The two compute the same function,
rounded differently (the tests compare them).

    python benchmarks/attention.py                    # K = 8, B = 32, T = 23, one thread
    python benchmarks/attention.py --steps 41 --threads 2
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import torch

from memrnn.models import CausalTransformer
from memrnn.models.attention import reference_attention, self_attention
from memrnn.models.controller.native import loops, python_loops
from memrnn.models.grouped import Grouped
from memrnn.models.positional import causal_bias
from memrnn.runner.allocator import keep_freed_memory


def best_of(run: Callable[[], object], repeats: int, rounds: int) -> float:
    """The fastest of ``rounds`` averages over ``repeats`` calls, in milliseconds, after a
    warm-up."""
    for _ in range(3):
        run()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            run()
        times.append((time.perf_counter() - start) / repeats * 1e3)
    return min(times)


def group_arguments(doc: str, steps: int) -> argparse.Namespace:
    """The command line of a benchmark of one group of K members (``doc`` its module's
    docstring, ``steps`` the default T), with the process set up as the runner's are and
    the compiled loops built."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--members", type=int, default=8, help="K, runs in the group")
    parser.add_argument("--batch", type=int, default=32, help="B, sequences a member")
    parser.add_argument("--steps", type=int, default=steps, help="T, sequence length")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch.set_num_threads (default: %(default)s)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=20,
        help="calls timed a round, their mean taken (default: %(default)s)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="timed rounds; the fastest is reported (default: %(default)s)",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    keep_freed_memory()  # as the runner's processes do
    if loops(torch.zeros(())) is None:
        raise SystemExit("the compiled loops could not be built; nothing to compare")
    torch.manual_seed(0)
    return args


def main() -> None:
    args = group_arguments(__doc__, steps=23)
    members = [CausalTransformer(10, 10, 32, 2, 4, 64, dropout=0.0) for _ in range(args.members)]
    group = Grouped(members)
    optimizer = torch.optim.Adam(group.parameters(), lr=1e-3)
    tokens = torch.randint(0, 10, (args.members, args.batch, args.steps))

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        group(tokens).square().mean().backward()
        optimizer.step()

    d = 32
    qkv = torch.randn(args.members * args.batch, args.steps, 3 * d, requires_grad=True)
    mask = causal_bias(args.steps)
    grad = torch.randn(args.members * args.batch, args.steps, d)

    def attention(attend: Callable[..., torch.Tensor]) -> Callable[[], None]:
        return lambda: attend(qkv, mask, 4).backward(grad)

    print(f"K = {args.members}, B = {args.batch}, T = {args.steps}, {args.threads} thread(s); "
          f"ms, best of {args.rounds} rounds of {args.repeats}")  # fmt: skip
    print(f"{'':>24} {'compiled':>9} {'ATen':>9} {'ratio':>6}")
    rows = {"training step": step, "attention fwd + bwd": None}
    for name, run in rows.items():
        compiled = best_of(run or attention(self_attention), args.repeats, args.rounds)
        with python_loops():
            aten = best_of(run or attention(reference_attention), args.repeats, args.rounds)
        print(f"{name:>24} {compiled:9.2f} {aten:9.2f} {aten / compiled:6.2f}")


if __name__ == "__main__":
    main()
