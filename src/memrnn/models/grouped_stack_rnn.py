"""The grouped forwards (``memrnn.models.grouped``) of the Stack-RNN of Suzgun et al.
(2019) and of the Fast Weights RNN of Ba et al. (2016).

Both are loops over time of small matrix products, which K members run as one: each
member's product becomes one slice of a batched product (``linear`` on stacked weights),
and whatever acts row by row (the superposition stack of Joulin and Mikolov 2015, the
fast-weight term A_{t-1} h of Ba et al., equation 2, a layer normalisation's statistics)
runs over all K B rows at once. A member's states are rows k B .. (k + 1) B - 1.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.models.controller.native import loops
from memrnn.models.controller.sequence import linear
from memrnn.models.fast_weights import FastWeightsRNN, _FastTerm
from memrnn.models.grouped import FORWARDS, GroupedForward, Params, _embed
from memrnn.models.stack_rnn import SuperpositionStackRNN
from memrnn.structures.superposition import room, with_room

_KINDS = ("rnn", "lstm", "gru")  # the cells by their number in loops.cpp's stack_rnn_states


def _stack_rnn_options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, SuperpositionStackRNN)
    return (model.cell_kind, model.input_size, model.W_y.out_features, model.hidden_size,
            model.stack_width, model.stack_depth)  # fmt: skip


def _stack_rnn_input(model: nn.Module) -> int:
    assert isinstance(model, SuperpositionStackRNN)
    return model.input_size


def _cell(
    kind: str, gates_x: Tensor, gates_h: Tensor, h: Tensor, c: Tensor | None
) -> tuple[Tensor, Tensor | None]:
    """One step of ``nn.RNNCell`` (tanh), ``nn.LSTMCell`` or ``nn.GRUCell`` from its two
    pre-activations x W_ih^T + b_ih and h W_hh^T + b_hh, in PyTorch's gate order."""
    if kind == "rnn":
        return torch.tanh(gates_x + gates_h), None
    if kind == "lstm":
        assert c is not None
        i, f, g, o = (gates_x + gates_h).chunk(4, dim=-1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c
    x_r, x_z, x_n = gates_x.chunk(3, dim=-1)
    h_r, h_z, h_n = gates_h.chunk(3, dim=-1)
    r, z = torch.sigmoid(x_r + h_r), torch.sigmoid(x_z + h_z)
    n = torch.tanh(x_n + r * h_n)
    return (1 - z) * n + z * h, None


def _stack_rnn_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``SuperpositionStackRNN.forward``: the cell's input products of all steps at once
    (token ids look their rows up, as their one-hot vectors would select them), then per
    step the stack's top into the state, the cell, the actions and the stack's step; the
    logits of all steps at once."""
    assert isinstance(model, SuperpositionStackRNN)
    t_len = inputs.shape[2]
    w_ih = params["cell.weight_ih"]
    gates_x = _embed(w_ih.mT, inputs) + params["cell.bias_ih"][:, None, None]
    # the actions (2) and the pushed value (m) from one product
    w_q = torch.cat([params["W_a.weight"], params["W_n.weight"]], dim=1)
    b_q = torch.cat([params["W_a.bias"], params["W_n.bias"]], dim=1)
    weights = (params["W_sh.weight"], params["cell.weight_hh"], params["cell.bias_hh"], w_q, b_q)
    native = loops(gates_x)
    if native is not None:
        rows: list[int] = []
        depth, width = model.stack_depth, model.stack_width
        for t in range(t_len):  # the stack's rows at each step, as with_room grows them
            rows.append(room(rows[-1] if rows else 0, min(depth, t), depth, width))
        kind = _KINDS.index(model.cell_kind)
        states = native.stack_rnn_states(gates_x, *weights, kind, model.hidden_size, width, rows)
    else:
        states = _stack_rnn_states(model, gates_x, *weights)
    return linear(states, params["W_y.weight"], params["W_y.bias"])


def _stack_rnn_states(
    model: SuperpositionStackRNN, gates_x: Tensor, w_sh: Tensor, w_hh: Tensor, b_hh: Tensor,
    w_q: Tensor, b_q: Tensor,
) -> Tensor:  # fmt: skip
    """The grouped Stack-RNN's states (K, B, T, H) under autograd, in Python (the
    reference of ``loops.cpp``'s ``stack_rnn_states``, the same operations)."""
    k, b, t_len = gates_x.shape[:3]
    h = gates_x.new_zeros(k, b, model.hidden_size)
    c = torch.zeros_like(h) if model.cell_kind == "lstm" else None
    depth = model.stack_depth
    stack = h.new_zeros(k * b, 0, model.stack_width)  # the rows that can be nonzero yet
    states = []
    # Unbound once: indexing step t in the loop would give each step's backward a
    # zero tensor of gates_x's size.
    for t, gates_x_t in enumerate(gates_x.unbind(2)):
        stack = with_room(stack, min(depth, t), depth)
        h = h + linear(stack[:, 0].view(k, b, -1), w_sh, None)
        gates_h = linear(h, w_hh, b_hh)
        h, c = _cell(model.cell_kind, gates_x_t, gates_h, h, c)
        states.append(h)
        if t == t_len - 1:  # the last step's stack would be read by no one
            break
        q = linear(h, w_q, b_q).flatten(0, 1)
        actions = torch.softmax(q[:, :2], dim=-1)
        _, stack = model.stack.step(stack, torch.sigmoid(q[:, 2:]), actions[:, 0], actions[:, 1])
    return torch.stack(states, dim=2)


def _fast_weights_options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, FastWeightsRNN)
    return (model.input_size, model.output_size, model.hidden_size, model.decay,
            model.fast_lr, model.inner_steps, model.form, model.norm_over)  # fmt: skip


def _fast_weights_input(model: nn.Module) -> int:
    assert isinstance(model, FastWeightsRNN)
    return model.input_size


def _fast_weights_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``FastWeightsRNN.forward`` in its attention form (which its tests check against
    the literal A_t of ``form="matrix"``), then the readout of Ba et al. (2016), section
    4.1: a hidden ReLU layer, then the scores."""
    assert isinstance(model, FastWeightsRNN)
    x = _embed(params["C.weight"], inputs)  # C x_t, (K, B, T, R)
    k, b, t_len, r = x.shape
    gain, shift = params["norm.weight"][:, None], params["norm.bias"][:, None]

    def norm(z: Tensor) -> Tensor:  # each member's own gain and bias on its rows
        return torch.addcmul(shift, F.layer_norm(z, (r,), eps=model.norm.eps), gain)

    h = x.new_zeros(k, b, r)
    past: list[Tensor] = []  # h_tau of every member, (K B, R) each
    # eta lambda^(t-1-tau) for tau < t is the last t entries
    powers = model.fast_lr * model.decay ** torch.arange(
        t_len - 1, -1, -1, dtype=h.dtype, device=h.device
    )
    # Unbound once: indexing step t in the loop would give each step's backward a
    # zero tensor of the inputs' size.
    for t, x_t in enumerate(x.unbind(2)):
        slow = linear(h, params["W.weight"], params["W.bias"]) + x_t
        h = torch.relu(slow)
        for _ in range(model.inner_steps):
            if not past:  # A_{-1} = 0
                fast = torch.zeros_like(h)
            else:
                fast = _FastTerm.apply(powers[t_len - t :], h.flatten(0, 1), *past).view(k, b, r)
            h = torch.relu(norm(slow + fast) if model.norm_over == "sum" else norm(slow) + fast)
        past.append(h.flatten(0, 1))
    features = torch.stack(past, dim=1).view(k, b, t_len, r)
    hidden = torch.relu(linear(features, params["readout.0.weight"], params["readout.0.bias"]))
    return linear(hidden, params["readout.2.weight"], params["readout.2.bias"])


def _always(model: nn.Module) -> bool:
    """Ready: neither model draws random numbers in its forward."""
    return isinstance(model, (SuperpositionStackRNN, FastWeightsRNN))


FORWARDS[SuperpositionStackRNN] = GroupedForward(
    _stack_rnn_options, _always, _stack_rnn_forward, _stack_rnn_input
)
FORWARDS[FastWeightsRNN] = GroupedForward(
    _fast_weights_options, _always, _fast_weights_forward, _fast_weights_input
)
