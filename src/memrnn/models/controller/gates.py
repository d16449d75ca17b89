"""The push, pop and value projections of one end of a controller's memory
(Grefenstette et al. 2015, section 3.4): from o'_t,

    d_t = sigmoid(W_d o'_t + b_d),   u_t = sigmoid(W_u o'_t + b_u),   v_t = tanh(W_v o'_t + b_v).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from memrnn.validation import check_float, check_sizes


class MemoryGates(nn.Module):
    """The push, pop and value projections for one end of the memory.

    Args:
        in_size: the size of o'_t.
        width: m, the width of the memory's values.
        push_bias, pop_bias: the initial biases b_d and b_u.
    """

    def __init__(self, in_size: int, width: int, push_bias: float, pop_bias: float) -> None:
        super().__init__()
        check_sizes(in_size=in_size, width=width)
        check_float("push_bias", push_bias)
        check_float("pop_bias", pop_bias)
        self.push = nn.Linear(in_size, 1)
        self.pop = nn.Linear(in_size, 1)
        self.value = nn.Linear(in_size, width)
        # Grefenstette et al. (2015), Appendix B: a negative pop bias keeps the memory from
        # being emptied at every step early in training, which would turn it into an extra
        # hidden layer.
        nn.init.constant_(self.push.bias, push_bias)
        nn.init.constant_(self.pop.bias, pop_bias)

    def forward(
        self, o_prime: Tensor, noise: Tensor | None = None, rounded: bool = False
    ) -> tuple[Tensor, Tensor, Tensor]:
        """(value (B, m), push (B,), pop (B,)) from o'_t (B, H'); ``noise`` (B, 2), if
        given, is added to the push and pop pre-activations; ``rounded`` rounds the push
        and pop strengths to 0 or 1 (0.5 to 0)."""
        push = self.push(o_prime).squeeze(-1)
        pop = self.pop(o_prime).squeeze(-1)
        if noise is not None:
            push, pop = push + noise[:, 0], pop + noise[:, 1]
        push, pop = torch.sigmoid(push), torch.sigmoid(pop)
        if rounded:
            push, pop = push.round(), pop.round()
        return torch.tanh(self.value(o_prime)), push, pop
