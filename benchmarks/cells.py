"""The grouped LSTM's, A-LSTM's, GRU's and memory LSTMs' compiled loops against the
Python ones.

A training step (forward, backward, Adam) of K LSTMs, Deep LSTMs (2 layers), A-LSTMs
(Ba et al. 2016), GRUs, Stack-LSTMs and DeQue-LSTMs (Grefenstette et al. 2015) of the
matrix's quick size (32 units, values of 16) trained as one group
(``memrnn.models.grouped``) on random tokens, and ``LSTMSequence`` and ``GRUSequence``
alone (forward and backward), timed with the compiled loops (``lstm.cpp``, ``gru.cpp``,
``reads.cpp``: each step's cell one pass of its own, the memory's reads one pass each,
the products ATen's) and with the Python loops (ATen's operations, the GRU's under
autograd, as where nothing compiles), in turns in one process. The two compute the same
function, rounded differently (the tests compare them).

    python benchmarks/cells.py                        # K = 8, B = 32, T = 21, one thread
    python benchmarks/cells.py --steps 81 --threads 2
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from attention import best_of, group_arguments

from memrnn.models import AttentionLSTM, DeepLSTM, GRUNetwork, OneHotLSTM, build_model
from memrnn.models.controller.native import loops, python_loops
from memrnn.models.grouped import Grouped
from memrnn.models.grouped_gru import GRUSequence, gru_states
from memrnn.models.grouped_lstm import LSTMSequence

VOCAB, HIDDEN = 10, 32


def training_step(build: Callable[[], torch.nn.Module], k: int, tokens: torch.Tensor
                  ) -> Callable[[], None]:  # fmt: skip
    """One training step of a group of ``k`` models from ``build``, on ``tokens``."""
    group = Grouped([build() for _ in range(k)])
    optimizer = torch.optim.Adam(group.parameters(), lr=1e-3)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        group(tokens).square().mean().backward()
        optimizer.step()

    return step


def main() -> None:
    args = group_arguments(__doc__, steps=21)
    k, b, t_len = args.members, args.batch, args.steps
    tokens = torch.randint(0, VOCAB, (k, b, t_len))
    xw = torch.randn(k, b, t_len, 4 * HIDDEN, requires_grad=True)
    w_hh = (torch.randn(k, 4 * HIDDEN, HIDDEN) / HIDDEN**0.5).requires_grad_()
    grad = torch.randn(k, b, t_len, HIDDEN)
    gru_xw = torch.randn(k, b, t_len, 3 * HIDDEN, requires_grad=True)
    gru_w = (torch.randn(k, HIDDEN, 3 * HIDDEN) / HIDDEN**0.5).requires_grad_()
    gru_b = torch.randn(k, 1, 3 * HIDDEN, requires_grad=True)

    def gru_alone() -> None:
        run = GRUSequence.apply if loops(gru_xw) is not None else gru_states
        run(gru_xw, gru_w, gru_b).backward(grad)

    rows = {
        "LSTM step": training_step(lambda: OneHotLSTM(VOCAB, VOCAB, HIDDEN), k, tokens),
        "Deep LSTM step": training_step(
            lambda: DeepLSTM(VOCAB, VOCAB, hidden_size=HIDDEN, layers=2), k, tokens
        ),
        "A-LSTM step": training_step(lambda: AttentionLSTM(VOCAB, VOCAB, HIDDEN), k, tokens),
        "GRU step": training_step(lambda: GRUNetwork(VOCAB, VOCAB, HIDDEN), k, tokens),
        "Stack-LSTM step": training_step(
            lambda: build_model("stack_lstm", VOCAB, VOCAB, hidden_size=HIDDEN), k, tokens
        ),
        "DeQue-LSTM step": training_step(
            lambda: build_model("deque_lstm", VOCAB, VOCAB, hidden_size=HIDDEN), k, tokens
        ),
        "LSTMSequence fwd + bwd": lambda: LSTMSequence.apply(xw, w_hh).backward(grad),
        "GRUSequence fwd + bwd": gru_alone,
    }
    print(f"K = {k}, B = {b}, T = {t_len}, {args.threads} thread(s); "
          f"ms, best of {args.rounds} rounds of {args.repeats}")  # fmt: skip
    print(f"{'':>24} {'compiled':>9} {'Python':>9} {'ratio':>6}")
    for name, run in rows.items():
        compiled = best_of(run, args.repeats, args.rounds)
        with python_loops():
            python = best_of(run, args.repeats, args.rounds)
        print(f"{name:>24} {compiled:9.2f} {python:9.2f} {python / compiled:6.2f}")


if __name__ == "__main__":
    main()
