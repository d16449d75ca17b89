"""The GRU of K members over a whole sequence as one autograd node (``GRUSequence``),
for the grouped GRU of ``memrnn.models.grouped_baselines``, and the loop it replaces
under autograd (``gru_states``), the reference where nothing compiles.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torch.autograd.function import once_differentiable

from memrnn.models.controller.native import loops


class GRUSequence(torch.autograd.Function):
    """K members' single-layer GRUs (``nn.GRU``, torch's gate order r, z, n) over a whole
    sequence from the zero state, as one autograd node: (input pre-activations xw
    (K, B, T, 3R), b_ih included; recurrent weights w_hh (K, R, 3R) and bias b_hh
    (K, 1, 3R)) -> the states h_t (K, B, T, R).

    Under autograd a GRU step is a dozen small operations, recorded and replayed one by
    one; here (``gru.cpp``, compiled with ``memrnn.models.controller.native``) a step is
    one batched product and one pass over each row, forward and back, and the gradient
    of w_hh is one product over all steps. It agrees with ``gru_states`` under autograd
    to rounding, and runs only where the compiled loops do.
    """

    @staticmethod
    def forward(ctx: Any, xw: Tensor, w_hh: Tensor, b_hh: Tensor) -> Tensor:
        native = loops(xw)
        if native is None:
            raise RuntimeError("GRUSequence needs the compiled loops; use gru_states")
        states, gates, hn = native.gru_sequence_forward(xw, w_hh, b_hh)
        ctx.save_for_backward(gates, hn, states, w_hh)
        return states

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, d_states: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        gates, hn, states, w_hh = ctx.saved_tensors
        native = loops(d_states)
        assert native is not None  # the forward ran compiled
        d_xw, d_w, d_b = native.gru_sequence_backward(d_states, gates, hn, states, w_hh)
        return d_xw, d_w, d_b


def gru_states(xw: Tensor, w_hh: Tensor, b_hh: Tensor) -> Tensor:
    """``GRUSequence``'s states (K, B, T, R), the same arguments, as ATen's operations
    under autograd: the reference, and the loop that runs where nothing compiles."""
    h = xw.new_zeros(xw.shape[0], xw.shape[1], w_hh.shape[1])
    states = []
    # Unbound once: indexing step t in the loop would give each step's backward a
    # zero tensor of xw's size.
    for xw_t in xw.unbind(2):
        x_r, x_z, x_n = xw_t.chunk(3, dim=-1)
        h_r, h_z, h_n = torch.baddbmm(b_hh, h, w_hh).chunk(3, dim=-1)
        r, z = torch.sigmoid(x_r + h_r), torch.sigmoid(x_z + h_z)
        n = torch.tanh(x_n + r * h_n)
        h = (h - n) * z + n  # torch's order of the same sum
        states.append(h)
    return torch.stack(states, dim=2)
