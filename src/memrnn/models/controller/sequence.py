"""``MemoryRNN`` over a whole sequence, two ways that give the same numbers.

- ``run_stepwise``: ``MemoryRNN.step`` once per time step under plain autograd, the literal
  reference;
- ``run_fused``: the whole sequence as one autograd node with a hand-written backward
  (``memrnn.models.controller.fused``), several times faster; the default. Its second
  half, ``run_weights``, also runs K controllers of one architecture at once from their
  stacked weights (``memrnn.models.grouped``); ``stream_fused`` runs the same node from a
  carried state and returns the state after the last step (``MemoryRNN.stream``).

Both take the gate noise already drawn, (B, T, 2E) or None, and return a ``Trace``;
``run_stepwise`` also starts from a given state and returns the state after the last step
(``MemoryRNN.stream``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import Tensor

from memrnn.models.controller.carry import Carry, StepOutput
from memrnn.models.controller.fused import Shape
from memrnn.models.controller.ops import memory_rnn_sequence
from memrnn.models.controller.products import members
from memrnn.models.trace import Trace
from memrnn.structures.layout import Layout
from memrnn.structures.state import MemoryState
from memrnn.structures.values import ValueBuffer

if TYPE_CHECKING:
    from memrnn.models.controller.network import MemoryRNN


def run_stepwise(
    model: MemoryRNN,
    inputs: Tensor,
    strengths: bool,
    noise: Tensor | None,
    carry: Carry | None = None,
) -> tuple[Trace, Carry]:
    """Run ``model.step`` at each step of ``inputs`` (B, T, I) from ``carry`` (None:
    ``model.start``); with ``strengths`` (from the start only), keep the memory's
    strengths after every step. Returns the trace and the state after the last step."""
    b, t_len, _ = inputs.shape
    if carry is None:
        carry = model.start(b, t_len)
    elif strengths:
        raise ValueError("strengths: kept only for a run from the initial state")
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
        ), carry

    def stacked(name: str) -> Tensor:
        return torch.stack([getattr(out, name) for out in steps], dim=1)

    return Trace(
        outputs=model.out(stacked("o_prime")),
        push=stacked("push"),
        pop=stacked("pop"),
        push_bot=stacked("push_bot") if deque else None,
        pop_bot=stacked("pop_bot") if deque else None,
        strengths=torch.stack(kept, dim=1) if strengths else None,
    ), carry


def run_fused(model: MemoryRNN, inputs: Tensor, strengths: bool, noise: Tensor | None) -> Trace:
    """The same as ``run_stepwise`` through ``memory_rnn_sequence``, for T >= 1."""
    params = dict(model.named_parameters())
    xw = linear(inputs, params["cell.weight_ih"][:, : model.input_size], input_bias(params))
    return run_weights(model, params, xw, strengths, noise)


def input_bias(params: Mapping[str, Tensor]) -> Tensor | None:
    """The cell's two biases as one, (G,) or (K, G) stacked, or None for a cell without."""
    bias_ih = params.get("cell.bias_ih")
    return bias_ih + params["cell.bias_hh"] if bias_ih is not None else None


def linear(x: Tensor, w: Tensor, b: Tensor | None) -> Tensor:
    """x w^T + b for x (R, T, I): one layer w (O, I), or K members' layers w (K, O, I) and
    b (K, O) on R = K B member-major rows (``memrnn.models.controller.fused``)."""
    k = members(w)
    if k is None:
        return F.linear(x, w, b)
    rows = x.reshape(k, -1, x.shape[-1])
    out = torch.bmm(rows, w.mT) if b is None else torch.baddbmm(b.unsqueeze(1), rows, w.mT)
    return out.view(*x.shape[:-1], w.shape[1])


def per_row(x: Tensor, rows: int) -> Tensor:
    """A learned state x (H,), or K members' (K, H), repeated for ``rows`` rows (R, H),
    member-major."""
    if x.ndim == 1:
        return x.expand(rows, -1)
    return x.unsqueeze(1).expand(x.shape[0], rows // x.shape[0], -1).flatten(0, 1)


def recurrent_weights(
    model: MemoryRNN, params: Mapping[str, Tensor]
) -> tuple[Tensor, Tensor, Tensor]:
    """The cell's weights on [r_{t-1} ; h_{t-1}] and the memory projections (w_q, b_q)
    of ``memory_rnn_sequence``, from ``params`` as for ``run_weights``."""
    w_ih = params["cell.weight_ih"]
    w_rec = torch.cat([w_ih[..., model.input_size :], params["cell.weight_hh"]], dim=-1)
    ends = ("top",) if model.bot is None else ("top", "bot")
    layers = [f"{end}.{kind}" for kind in ("value", "push", "pop") for end in ends]
    w_q = torch.cat([params[f"{layer}.weight"] for layer in layers], dim=-2)
    b_q = torch.cat([params[f"{layer}.bias"] for layer in layers], dim=-1)
    return w_rec, w_q, b_q


def run_weights(
    model: MemoryRNN,
    params: Mapping[str, Tensor],
    xw: Tensor,
    strengths: bool,
    noise: Tensor | None,
) -> Trace:
    """``run_fused`` from the cell's input pre-activations xw (R, T, G), biases included,
    with ``model``'s architecture and the weights ``params`` (its ``named_parameters``):
    its own, or K members' stacked (K, ...) on R = K B member-major rows."""
    rows, t_len, _ = xw.shape
    w_rec, w_q, b_q = recurrent_weights(model, params)
    c0 = params.get("c0")
    layout = Layout(model.memory_kind, t_len)
    shape = Shape(layout, model.hidden_size, model.memory_width, lstm=c0 is not None)
    o_prime, push, pop, kept = memory_rnn_sequence(
        xw,
        per_row(params["h0"], rows),
        per_row(c0, rows) if c0 is not None else None,
        w_rec,
        params.get("o_prime.weight"),
        params.get("o_prime.bias"),
        w_q,
        b_q,
        noise,
        shape,
    )
    kept = layout.to_paper(kept.transpose(0, 1)) if strengths else None
    return _trace(model, params, o_prime, push, pop, kept)


def _trace(
    model: MemoryRNN,
    params: Mapping[str, Tensor],
    o_prime: Tensor,
    push: Tensor,
    pop: Tensor,
    strengths: Tensor | None,
) -> Trace:
    deque = model.bot is not None
    return Trace(
        outputs=linear(o_prime, params["out.weight"], params["out.bias"]),
        push=push[..., 0],
        pop=pop[..., 0],
        push_bot=push[..., 1] if deque else None,
        pop_bot=pop[..., 1] if deque else None,
        strengths=strengths,
    )


def stream_fused(
    model: MemoryRNN, inputs: Tensor, noise: Tensor | None, carry: Carry
) -> tuple[Trace, Carry]:
    """``run_stepwise`` from ``carry`` through ``memory_rnn_sequence``, for T >= 1: the
    carried memory fills the rows of the steps before this chunk's, and the state after
    the last step comes back as a ``Carry`` (the same numbers, as one autograd node)."""
    params = dict(model.named_parameters())
    xw = linear(inputs, params["cell.weight_ih"][:, : model.input_size], input_bias(params))
    memory = carry.memory
    carried = memory.size // 2 if model.bot is not None else memory.size
    layout = Layout(model.memory_kind, inputs.shape[1], carried)
    shape = Shape(layout, model.hidden_size, model.memory_width, carry.c is not None, final=True)

    def flipped(x: Tensor) -> Tensor:
        """Rows in the layout's order from the paper's, or back: a stack's are reversed."""
        return x.flip(1) if model.memory_kind == "stack" else x

    w_rec, w_q, b_q = recurrent_weights(model, params)
    o_prime, push, pop, _, h, c, read, s, values = memory_rnn_sequence(
        xw, carry.h, carry.c, w_rec, params.get("o_prime.weight"), params.get("o_prime.bias"),
        w_q, b_q, noise, shape, carry.read, flipped(memory.strengths), flipped(memory.values),
    )  # fmt: skip
    rows = layout.rows
    state = MemoryState(flipped(s), ValueBuffer(flipped(values), 0, rows), 0, rows,
                        centred=model.bot is not None)  # fmt: skip
    return _trace(model, params, o_prime, push, pop, None), Carry(h, c, read, state)
