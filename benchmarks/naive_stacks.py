"""Two Stack-LSTMs written the way public code often writes them, as baselines.

Both use the same controller and sizes as ``memrnn.models.MemoryAugmentedLSTM`` (an LSTM
cell on [embedding ; previous read], o'_t = h_t, push, pop and value projections, the
output through tanh and an output layer) and differ only in the stack, which autograd
differentiates step by step:

- ``restacking``: vectorised: sums over rows by cumsum, and the value matrix V_t
  re-stacked (copied, one row longer) at every step, so autograd keeps O(t m) numbers
  per step;
- ``depth_loop``: the literal stratification of Eqs. (2) and (3), a Python loop over the
  rows from the top down, O(t) small operations per step.

``benchmarks/train_step.py`` times them and checks first that they compute what memrnn
computes.
"""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn

Variant = Literal["restacking", "depth_loop"]


def restacking_step(values: Tensor, s: Tensor, v: Tensor, d: Tensor, u: Tensor
                    ) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """Eqs. (1)-(3) on values (B, t, m) and strengths (B, t): returns V_t, s_t, r_t."""
    above = s.flip(-1).cumsum(-1).flip(-1) - s
    s = torch.relu(s - torch.relu(u[:, None] - above))
    s = torch.cat([s, d[:, None]], dim=1)
    values = torch.cat([values, v[:, None]], dim=1)
    above = s.flip(-1).cumsum(-1).flip(-1) - s
    weights = torch.minimum(s, torch.relu(1 - above))
    return values, s, torch.bmm(weights[:, None], values)[:, 0]


def depth_loop_step(values: list[Tensor], s: list[Tensor], v: Tensor, d: Tensor, u: Tensor
                    ) -> tuple[list[Tensor], list[Tensor], Tensor]:  # fmt: skip
    """Eqs. (1)-(3) one row at a time, rows as lists of (B,) and (B, m) tensors."""
    left = u
    popped = []
    for s_i in reversed(s):  # top down: each row absorbs what is left of the pop
        popped.append(torch.relu(s_i - left))
        left = torch.relu(left - s_i)
    s = [*popped[::-1], d]
    values = [*values, v]
    read = torch.zeros_like(v)
    room = torch.ones_like(d)
    for s_i, v_i in zip(reversed(s), reversed(values), strict=True):
        weight = torch.minimum(s_i, room)
        read = read + weight[:, None] * v_i
        room = torch.relu(room - s_i)
    return values, s, read


class NaiveStackLSTM(nn.Module):
    """A Stack-LSTM on token ids with one of the two naive stacks."""

    def __init__(self, input_vocab: int, output_vocab: int, variant: Variant, *,
                 hidden: int = 256, embedding: int = 64,
                 memory_width: int = 256) -> None:  # fmt: skip
        super().__init__()
        self.variant = variant
        self.embed = nn.Embedding(input_vocab, embedding)
        self.cell = nn.LSTMCell(embedding + memory_width, hidden)
        self.h0 = nn.Parameter(torch.zeros(hidden))
        self.c0 = nn.Parameter(torch.zeros(hidden))
        self.push = nn.Linear(hidden, 1)
        self.pop = nn.Linear(hidden, 1)
        self.value = nn.Linear(hidden, memory_width)
        self.out = nn.Linear(hidden, embedding)
        self.output = nn.Linear(embedding, output_vocab)
        nn.init.constant_(self.pop.bias, -1.0)

    def forward(self, tokens: Tensor) -> Tensor:
        """Logits (B, T, V_out)."""
        x = self.embed(tokens)
        b, t_len, _ = x.shape
        h, c = self.h0.expand(b, -1), self.c0.expand(b, -1)
        read = x.new_zeros(b, self.value.out_features)
        values_t = x.new_zeros(b, 0, self.value.out_features)
        s_t = x.new_zeros(b, 0)
        values_l: list[Tensor] = []
        s_l: list[Tensor] = []
        outputs = []
        for t in range(t_len):
            h, c = self.cell(torch.cat([x[:, t], read], dim=1), (h, c))
            v = torch.tanh(self.value(h))
            d = torch.sigmoid(self.push(h))[:, 0]
            u = torch.sigmoid(self.pop(h))[:, 0]
            if self.variant == "restacking":
                values_t, s_t, read = restacking_step(values_t, s_t, v, d, u)
            else:
                values_l, s_l, read = depth_loop_step(values_l, s_l, v, d, u)
            outputs.append(h)
        return self.output(torch.tanh(self.out(torch.stack(outputs, dim=1))))


def copy_weights(source: nn.Module, target: NaiveStackLSTM) -> None:
    """Give ``target`` the weights of a memrnn ``MemoryAugmentedLSTM(memory="stack")``."""
    core = source.core  # type: ignore[union-attr]
    with torch.no_grad():
        target.embed.weight.copy_(source.embed.weight)  # type: ignore[union-attr]
        target.cell.load_state_dict(core.cell.state_dict())
        target.h0.copy_(core.h0)
        target.c0.copy_(core.c0)
        for mine, theirs in ((target.push, core.top.push), (target.pop, core.top.pop),
                             (target.value, core.top.value), (target.out, core.out),
                             (target.output, source.output)):  # fmt: skip
            mine.load_state_dict(theirs.state_dict())


def same_logits(a: Tensor, b: Tensor) -> bool:
    """Whether two runs agree to float32 rounding."""
    return bool(torch.allclose(a, b, rtol=1e-4, atol=1e-5)) and not F.mse_loss(a, b).isnan()
