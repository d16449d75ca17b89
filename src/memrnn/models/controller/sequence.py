"""``MemoryRNN`` over a whole sequence, two ways that give the same numbers.

- ``run_stepwise``: ``MemoryRNN.step`` once per time step under plain autograd, the literal
  reference;
- ``run_fused``: the whole sequence as one autograd node with a hand-written backward
  (``memrnn.models.controller.fused``), several times faster; the default.

Both take the gate noise already drawn, (B, T, 2E) or None, and return a ``Trace``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import Tensor

from memrnn.models.controller.carry import StepOutput
from memrnn.models.controller.fused import MemoryRNNSequence, Shape
from memrnn.models.trace import Trace
from memrnn.structures.layout import Layout

if TYPE_CHECKING:
    from memrnn.models.controller.network import MemoryRNN


def run_stepwise(model: MemoryRNN, inputs: Tensor, strengths: bool, noise: Tensor | None) -> Trace:
    """Run ``model.step`` at each step of ``inputs`` (B, T, I); with ``strengths``, keep
    the memory's strengths after every step."""
    b, t_len, _ = inputs.shape
    carry = model.start(b, t_len)
    steps: list[StepOutput] = []
    kept: list[Tensor] = []
    deque = model.bot is not None
    for t in range(t_len):
        out, carry = model.step(carry, inputs[:, t], noise[:, t] if noise is not None else None)
        steps.append(out)
        if strengths:
            s = carry.memory.strengths
            pad = (t_len - t - 1,) * 2 if deque else (0, t_len - t - 1)
            kept.append(F.pad(s, pad))
    if t_len == 0:
        empty = inputs.new_zeros(b, 0)
        return Trace(
            outputs=inputs.new_zeros(b, 0, model.output_size),
            push=empty,
            pop=empty,
            push_bot=empty if deque else None,
            pop_bot=empty if deque else None,
            strengths=inputs.new_zeros(b, 0, 0) if strengths else None,
        )

    def stacked(name: str) -> Tensor:
        return torch.stack([getattr(out, name) for out in steps], dim=1)

    return Trace(
        outputs=model.out(stacked("o_prime")),
        push=stacked("push"),
        pop=stacked("pop"),
        push_bot=stacked("push_bot") if deque else None,
        pop_bot=stacked("pop_bot") if deque else None,
        strengths=torch.stack(kept, dim=1) if strengths else None,
    )


def run_fused(model: MemoryRNN, inputs: Tensor, strengths: bool, noise: Tensor | None) -> Trace:
    """The same as ``run_stepwise`` through ``MemoryRNNSequence``, for T >= 1."""
    b, t_len, _ = inputs.shape
    cell = model.cell
    n_in = model.input_size
    bias = cell.bias_ih + cell.bias_hh if cell.bias_ih is not None else None
    xw = F.linear(inputs, cell.weight_ih[:, :n_in], bias)
    w_rec = torch.cat([cell.weight_ih[:, n_in:], cell.weight_hh], dim=1)
    ends = [model.top] if model.bot is None else [model.top, model.bot]
    layers = [g.value for g in ends] + [g.push for g in ends] + [g.pop for g in ends]
    w_q = torch.cat([layer.weight for layer in layers])
    b_q = torch.cat([layer.bias for layer in layers])
    layout = Layout(model.memory_kind, t_len)
    shape = Shape(layout, model.hidden_size, model.memory_width, lstm=model.c0 is not None)
    o_prime, push, pop, kept = MemoryRNNSequence.apply(
        xw,
        model.h0.expand(b, -1),
        model.c0.expand(b, -1) if model.c0 is not None else None,
        w_rec,
        model.o_prime.weight if model.o_prime is not None else None,
        model.o_prime.bias if model.o_prime is not None else None,
        w_q,
        b_q,
        noise,
        shape,
    )
    deque = model.bot is not None
    return Trace(
        outputs=model.out(o_prime),
        push=push[..., 0],
        pop=pop[..., 0],
        push_bot=push[..., 1] if deque else None,
        pop_bot=pop[..., 1] if deque else None,
        strengths=layout.to_paper(kept.transpose(0, 1)) if strengths else None,
    )
