"""The LSTM of K members over a whole sequence as one autograd node (``LSTMSequence``),
for the grouped forwards of ``memrnn.models.grouped_baselines``: the LSTM's, one per
layer of the Deep LSTM's, and the steps of the A-LSTM's, which share its cell and its
step back.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.autograd.function import once_differentiable

from memrnn.models.controller.native import loops

# c_{t-1} and h_{t-1} padded in before the first step: the zero state
_BEFORE = (0, 0, 1, 0)


def lstm_cell(pre: Tensor, c: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """One step of ``nn.LSTM``'s cell (gate order i, f, g, o) from its pre-activations
    (..., 4R) and c_{t-1} (..., R): the gates after their sigmoid or tanh, c_t, tanh(c_t)
    and h_t, what a hand-written backward keeps."""
    r = pre.shape[-1] // 4
    act = torch.sigmoid(pre)  # i, f and o; g's quarter is overwritten by its tanh
    act[..., 2 * r : 3 * r] = torch.tanh(pre[..., 2 * r : 3 * r])
    i, f, g, o = act.chunk(4, dim=-1)
    c = (f * c).add_(i * g)  # nn.LSTM's order of the sum
    tanh_c = torch.tanh(c)
    return act, c, tanh_c, o * tanh_c


def lstm_factors(acts: Tensor, cells: Tensor, tanhs: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The slopes of K members' LSTM steps (``nn.LSTM``'s gate order) from the zero state,
    for every step at once, from the gates after their sigmoid or tanh (K, B, T, 4R), the
    cells c_t and their tanh (K, B, T, R): d gates / d (c, c, c, h) (K, B, T, 4R),
    d h_t / d c_t, and the forget gates."""
    i, f, g, o = acts.chunk(4, dim=-1)
    factors = torch.cat([g * i * (1 - i), F.pad(cells[:, :, :-1], _BEFORE) * f * (1 - f),
                         i * (1 - g * g), tanhs * o * (1 - o)], dim=-1)  # fmt: skip
    return factors, o * (1 - tanhs * tanhs), f


def lstm_step_back(
    d_h: Tensor, d_c: Tensor, factors: Tensor, through_tanh: Tensor
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """One LSTM step back, from dL/dh_t and the dL/dc_t of later steps, with that step's
    ``lstm_factors``: dL/d gates and the whole dL/dc_t."""
    d_c = torch.addcmul(d_c, d_h, through_tanh)
    return torch.cat([d_c, d_c, d_c, d_h], dim=-1) * factors, d_c


class LSTMSequence(torch.autograd.Function):
    """K members' single-layer LSTMs (``nn.LSTM``, torch's gate order i, f, g, o) over a
    whole sequence from the zero state, as one autograd node: (input pre-activations xw
    (K, B, T, 4R), biases included; recurrent weights w_hh (K, 4R, R)) -> the states h_t
    (K, B, T, R).

    Its hand-written backward runs back through time with one batched product per step
    and few element-wise operations, where autograd would replay every operation of every
    step, and it forms the gradient of w_hh at the end as one product over all steps. Both
    loops run compiled where they can (``memrnn.models.controller.native``, ``lstm.cpp``:
    each step's cell one pass of its own kernel, the products ATen's), agreeing with the
    Python ones (``_lstm_sequence``, ``_lstm_sequence_back``, ATen's operations) to
    rounding.
    """

    @staticmethod
    def forward(ctx: Any, xw: Tensor, w_hh: Tensor) -> Tensor:
        native = loops(xw)
        if native is not None:
            out, acts, cells, tanhs = native.lstm_sequence_forward(xw, w_hh)
        else:
            out, acts, cells, tanhs = _lstm_sequence(xw, w_hh)
        ctx.save_for_backward(acts, cells, tanhs, out, w_hh)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, d_states: Tensor) -> tuple[Tensor, Tensor]:
        acts, cells, tanhs, states, w_hh = ctx.saved_tensors
        k, b, t_len, r = states.shape
        native = loops(d_states)
        if native is not None:
            d_gates = native.lstm_sequence_backward(d_states, acts, cells, tanhs, w_hh)
        else:
            factors, through_tanh, f = lstm_factors(acts, cells, tanhs)
            d_gates = _lstm_sequence_back(d_states, factors, through_tanh, f, w_hh)
        rows = F.pad(states[:, :, :-1], _BEFORE).reshape(k, b * t_len, r)
        d_w = torch.bmm(d_gates.view(k, b * t_len, 4 * r).mT, rows)
        return d_gates, d_w


def _lstm_sequence(xw: Tensor, w_hh: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``LSTMSequence``'s forward loop in Python (the reference of ``lstm.cpp``'s): the
    states, and the gates, cells and their tanh of every step, each (K, B, T, .)."""
    k, b, t_len, four = xw.shape
    w = w_hh.mT
    h = xw.new_zeros(k, b, four // 4)
    c = torch.zeros_like(h)
    acts: list[Tensor] = []
    cells: list[Tensor] = []
    tanhs: list[Tensor] = []
    states: list[Tensor] = []
    for t in range(t_len):
        act, c, tanh_c, h = lstm_cell(torch.baddbmm(xw[:, :, t], h, w), c)
        for kept, x in ((acts, act), (cells, c), (tanhs, tanh_c), (states, h)):
            kept.append(x)
    out, acts_t, cells_t, tanhs_t = (torch.stack(x, dim=2) for x in (states, acts, cells, tanhs))
    return out, acts_t, cells_t, tanhs_t


def _lstm_sequence_back(
    d_states: Tensor, factors: Tensor, through_tanh: Tensor, f: Tensor, w_hh: Tensor
) -> Tensor:  # fmt: skip
    """``LSTMSequence``'s backward loop in Python (the reference of ``lstm.cpp``'s):
    dL/d gates (K, B, T, 4R) from dL/dh_t and the steps' ``lstm_factors``."""
    k, b, t_len, r = d_states.shape
    d_gates = torch.empty_like(factors)
    d_h = d_c = d_states.new_zeros(k, b, r)
    for t in reversed(range(t_len)):
        d_h = d_states[:, :, t] + d_h
        d_pre, d_c = lstm_step_back(d_h, d_c, factors[:, :, t], through_tanh[:, :, t])
        d_gates[:, :, t] = d_pre
        if t:
            d_c = d_c * f[:, :, t]
            d_h = torch.bmm(d_pre, w_hh)
    return d_gates
