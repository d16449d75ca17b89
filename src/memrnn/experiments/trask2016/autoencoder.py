"""Trask (2016)'s autoencoder side task ("Part 6", "Hint: Autoencoder"): two sigmoid
heads without bias, one on the controller state h_t and one on o'_t, each trained to
reproduce the previous step's input x_{t-1}."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from memrnn.models.checks import check_inputs
from memrnn.models.controller import MemoryRNN


def autoencoder_loss(inputs: Tensor, from_h: Tensor, from_o: Tensor) -> Tensor:
    """Trask (2016)'s autoencoder side task, the loss the "Hint: Autoencoder" code trains.

    At every step t >= 1 (nothing at t = 0) each of the two heads, ``from_h`` (its xo_t, a
    sigmoid of h_t) and ``from_o`` (its o_prime_x_t, a sigmoid of o'_t), predicts the
    previous step's whole input x_{t-1}, symbol and phase flags, by squared error
    1/2 ||x_{t-1} - y_t||^2: the tutorial's deltas (x_{t-1} - y_t) y_t (1 - y_t). Both
    weigh as much as the main task (its ``*= 1``), and as there each sequence's sum over
    steps is divided by its source length L = T / 2 (its learning rate max_alpha / L),
    as is the reversal's cross-entropy; the mean over the batch.

    Args:
        inputs: (B, T, I) the inputs x_t, T = 2L.
        from_h, from_o: (B, T, I) the two heads' sigmoid outputs.
    """
    if inputs.ndim != 3 or inputs.shape[1] < 2:
        raise ValueError(f"inputs: expected (B, T, I) with T >= 2, got {tuple(inputs.shape)}")
    for name, head in (("from_h", from_h), ("from_o", from_o)):
        if head.shape != inputs.shape:
            raise ValueError(
                f"{name}: expected the inputs' shape {tuple(inputs.shape)}, got {tuple(head.shape)}"
            )
    target = inputs[:, :-1]
    squares = (target - from_h[:, 1:]).square() + (target - from_o[:, 1:]).square()
    return 0.5 * squares.sum(dim=(1, 2)).mean() / (inputs.shape[1] // 2)


class AutoencodingStackRNN(MemoryRNN):
    """``MemoryRNN`` with the heads of Trask (2016)'s side task: sigmoid layers without
    bias from h_t (its W_hox) and from o'_t (its W_opx) to the size of the input.

    Takes ``MemoryRNN``'s arguments; ``forward`` is ``MemoryRNN``'s.
    """

    def __init__(
        self, input_size: int, output_size: int, hidden_size: int, memory_width: int, **kw: Any
    ) -> None:
        super().__init__(input_size, output_size, hidden_size, memory_width, **kw)
        self.from_h = nn.Linear(hidden_size, input_size, bias=False)
        self.from_o = nn.Linear(self.output_hidden, input_size, bias=False)

    def with_reconstructions(self, inputs: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(logits, the head on h_t, the head on o'_t), each (B, T, ·), for ``inputs``
        (B, T, I). Runs ``step`` at each time step: the whole-sequence path of ``forward``
        does not return h_t. No gate noise is added (this experiment uses none)."""
        check_inputs(inputs, self.input_size, self.h0)
        b, t_len, _ = inputs.shape
        carry = self.start(b, t_len)
        o_primes, states = [], []
        for t in range(t_len):
            out, carry = self.step(carry, inputs[:, t])
            o_primes.append(out.o_prime)
            states.append(carry.h)
        o_prime, h = torch.stack(o_primes, dim=1), torch.stack(states, dim=1)
        return (
            self.out(o_prime),
            torch.sigmoid(self.from_h(h)),
            torch.sigmoid(self.from_o(o_prime)),
        )
