"""One step of PyTorch's ``nn.RNNCell``, ``nn.GRUCell`` and ``nn.LSTMCell``, written with
the plain operations the cells are made of, on the cells' own weights.

``torch.func.vmap`` has no batching rule for the cells' fused operators
(``aten::rnn_tanh_cell``, ``aten::lstm_cell``, ``aten::gru_cell``): it runs them member by
member, or not at all. Written out, a grouped model (``memrnn.models.grouped``) runs K
members' cells as batched matrix products. The arithmetic is the cells' (PyTorch's
documentation of each gives the equations), so a model keeps the cell's parameters and
its saved weights; the tests compare each with its ``nn`` cell on random inputs.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def _products(cell: nn.RNNCellBase, x: Tensor, h: Tensor) -> tuple[Tensor, Tensor]:
    return F.linear(x, cell.weight_ih, cell.bias_ih), F.linear(h, cell.weight_hh, cell.bias_hh)


def rnn_step(cell: nn.RNNCell, x: Tensor, h: Tensor) -> Tensor:
    """h' = act(W_ih x + b_ih + W_hh h + b_hh), act tanh or ReLU as the cell's."""
    wx, wh = _products(cell, x, h)
    return torch.tanh(wx + wh) if cell.nonlinearity == "tanh" else torch.relu(wx + wh)


def gru_step(cell: nn.GRUCell, x: Tensor, h: Tensor) -> Tensor:
    """r, z = sigmoid(...); n = tanh(W_in x + b_in + r (W_hn h + b_hn)); h' = (1 - z) n + z h."""
    wx, wh = _products(cell, x, h)
    xr, xz, xn = wx.chunk(3, dim=-1)
    hr, hz, hn = wh.chunk(3, dim=-1)
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    n = torch.tanh(xn + r * hn)
    return (1 - z) * n + z * h


def lstm_step(cell: nn.LSTMCell, x: Tensor, state: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
    """i, f, g, o from W_ih x + b_ih + W_hh h + b_hh; c' = f c + i g; h' = o tanh(c')."""
    h, c = state
    wx, wh = _products(cell, x, h)
    i, f, g, o = (wx + wh).chunk(4, dim=-1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c
