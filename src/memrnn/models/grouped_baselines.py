"""The grouped forwards (``memrnn.models.grouped``) of the recurrent baselines: the IRNN
(Le et al. 2015), the LSTM and the A-LSTM of Ba et al. (2016), Table 1, the Deep LSTM of
Grefenstette et al. (2015) and the GRU of Paassen, Schulz, Hammer (2021), K members of
one architecture run at once from their stacked weights.

Each time step is one batched matrix product over the members (``torch.baddbmm``) where
K members alone take K products, and the A-LSTM's attention over past hidden states,
which acts row by row, runs over all K B rows at once. ``nn.LSTM`` and ``nn.GRU`` step
through time in C++, yet K of them cost K times the kernel launches of one grouped step
written out here (the LSTM's and the A-LSTM's with hand-written backwards,
``LSTMSequence``, one per layer of the Deep LSTM, ``AttentionSequence`` and the GRU's
``GRUSequence``): both measured faster grouped at K = 4 and 16
(``benchmarks/batched_runs.py``). Their time loops run compiled where they can
(``memrnn.models.controller.native``): the IRNN's with the same numbers bit for bit as
the Python loop here, the reference; the LSTM's, A-LSTM's and GRU's with cells of their
own, to rounding (their Python loops, ATen's operations, are the reference). No model here
draws random numbers in its forward, so every member can be grouped, save a Deep LSTM
given dropout between its layers (memrnn builds none). Importing
``memrnn.models.grouped`` registers all five.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.autograd.function import once_differentiable

from memrnn.models.baselines import IRNN, AttentionLSTM, OneHotLSTM
from memrnn.models.controller.native import loops
from memrnn.models.controller.sequence import linear
from memrnn.models.grouped import FORWARDS, GroupedForward, Params, _embed
from memrnn.models.grouped_gru import GRUSequence, gru_states
from memrnn.models.grouped_lstm import (
    _BEFORE,
    LSTMSequence,
    lstm_cell,
    lstm_factors,
    lstm_step_back,
)
from memrnn.models.gru import GRUNetwork
from memrnn.models.readout import ReadoutRNN
from memrnn.models.transducer import DeepLSTM


def readout(params: Params, features: Tensor) -> Tensor:
    """The readout of Ba et al. (2016), section 4.1 (``memrnn.models.readout``), of K
    members: features (K, B, T, F) through the hidden ReLU layer to scores (K, B, T, O)."""
    hidden = torch.relu(linear(features, params["readout.0.weight"], params["readout.0.bias"]))
    return linear(hidden, params["readout.2.weight"], params["readout.2.bias"])


def _options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, ReadoutRNN)
    return (model.input_size, model.output_size, model.hidden_size)


def _input_size(model: nn.Module) -> int:
    assert isinstance(model, ReadoutRNN)
    return model.input_size


def _irnn_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``IRNN.forward``: h_t = ReLU(W h_{t-1} + C x_t + b) from h_0 = 0, then the readout."""
    assert isinstance(model, IRNN)
    x = _embed(params["C.weight"], inputs)  # (K, B, T, R)
    w, bias = params["W.weight"].mT, params["W.bias"].unsqueeze(1)
    native = loops(x)
    run = native.irnn_states if native is not None else _irnn_states
    return readout(params, run(x, w, bias, model.hidden_size))


def _irnn_states(x: Tensor, w: Tensor, bias: Tensor, hidden: int) -> Tensor:
    """The grouped IRNN's states (K, B, T, R) under autograd, in Python (the reference of
    ``loops.cpp``'s ``irnn_states``, the same operations)."""
    h = x.new_zeros(x.shape[0], x.shape[1], hidden)
    states = []
    # Unbound once: indexing step t in the loop would give each step's backward a
    # zero tensor of the inputs' size.
    for x_t in x.unbind(2):
        h = torch.relu(torch.baddbmm(bias, h, w) + x_t)
        states.append(h)
    return torch.stack(states, dim=2)


def _lstm_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``OneHotLSTM.forward``: ``nn.LSTM`` from the zero state (``LSTMSequence``), then
    the readout; token ids pick their columns of the input weights, as their one-hot
    vectors would."""
    assert isinstance(model, OneHotLSTM)
    w_ih = params["lstm.weight_ih_l0"]
    k = w_ih.shape[0]
    bias = (params["lstm.bias_ih_l0"] + params["lstm.bias_hh_l0"]).view(k, 1, 1, -1)
    xw = _embed(w_ih.mT, inputs) + bias  # (K, B, T, 4R)
    states: Tensor = LSTMSequence.apply(xw, params["lstm.weight_hh_l0"])
    return readout(params, states)


def _deep_lstm_options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, DeepLSTM)
    lstm = model.lstm
    return (model.input_vocab, model.output_vocab, lstm.hidden_size, lstm.num_layers,
            lstm.input_size)  # fmt: skip


def _deep_lstm_ready(model: nn.Module) -> bool:
    # nn.LSTM's dropout between layers draws random numbers in training
    return isinstance(model, DeepLSTM) and model.lstm.dropout == 0


def _deep_lstm_input(model: nn.Module) -> int:
    assert isinstance(model, DeepLSTM)
    return model.input_vocab


def _deep_lstm_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``DeepLSTM.forward``: the embedding, each layer's LSTM from the zero state
    (``LSTMSequence``) on the states of the layer below, then tanh of the projection and
    the output layer."""
    assert isinstance(model, DeepLSTM)
    states = _embed(params["embed.weight"], inputs)  # (K, B, T, E)
    for layer in range(model.lstm.num_layers):
        bias = params[f"lstm.bias_ih_l{layer}"] + params[f"lstm.bias_hh_l{layer}"]
        xw = linear(states, params[f"lstm.weight_ih_l{layer}"], bias)  # (K, B, T, 4H)
        states = LSTMSequence.apply(xw, params[f"lstm.weight_hh_l{layer}"])
    projected = torch.tanh(linear(states, params["project.weight"], params["project.bias"]))
    return linear(projected, params["output.weight"], params["output.bias"])


def _gru_options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, GRUNetwork)
    return (model.input_size, model.output_size, model.gru.hidden_size)


def _gru_input_size(model: nn.Module) -> int:
    assert isinstance(model, GRUNetwork)
    return model.input_size


def _gru_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``GRUNetwork.forward``: ``nn.GRU`` from the zero state (gates r, z, n in torch's
    order: n = tanh(W_in x + b_in + r (W_hn h + b_hn)), h' = (1 - z) n + z h), then the
    linear readout."""
    assert isinstance(model, GRUNetwork)
    w_ih = params["gru.weight_ih_l0"]
    k = w_ih.shape[0]
    xw = _embed(w_ih.mT, inputs) + params["gru.bias_ih_l0"].view(k, 1, 1, -1)  # (K, B, T, 3R)
    w_hh, b_hh = params["gru.weight_hh_l0"].mT, params["gru.bias_hh_l0"].unsqueeze(1)
    compiled = loops(xw) is not None
    states = GRUSequence.apply(xw, w_hh, b_hh) if compiled else gru_states(xw, w_hh, b_hh)
    return linear(states, params["readout.weight"], params["readout.bias"])


class AttentionSequence(torch.autograd.Function):
    """K members' A-LSTM recurrence (``AttentionLSTM``, Ba et al. 2016, section 4.1) over a
    whole sequence from the zero state, as one autograd node: (input pre-activations xw
    (K, B, T, 4R); the cell's bias (K, 1, 4R) and weights on [c_{t-1} ; h_{t-1}]
    (K, 2R, 4R), the context c being the attention's; the query's weights (K, R, R)) ->
    the features [h_t ; context_t] (K, B, T, 2R).

    Step by step, autograd would record some forty operations a step and stack the past
    states anew at each (quadratic in T); here the past states fill one buffer, the
    attention's products over them are broadcast ones (a ``torch.bmm`` of K B tiny
    matrices takes its slow path), and the hand-written backward runs back through time
    with a few batched operations per step, forming the weights' gradients at the end as
    one product over all steps. Both loops run compiled where they can, with the cell's
    kernel of ``LSTMSequence``'s, agreeing with the Python ones to rounding.
    """

    @staticmethod
    def forward(
        ctx: Any, xw: Tensor, bias: Tensor, w_rec: Tensor, w_query: Tensor
    ) -> Tensor:  # fmt: skip
        native = loops(xw)
        run = native.attention_sequence_forward if native is not None else _attention_sequence
        features, *kept = run(xw, bias, w_rec, w_query)
        ctx.save_for_backward(*kept, w_rec, w_query)
        return features

    @staticmethod
    @once_differentiable
    def backward(
        ctx: Any, d_features: Tensor
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:  # fmt: skip
        acts, cells, tanhs, contexts, states, queries, weights, w_rec, w_query = ctx.saved_tensors
        k, b, t_len, r = cells.shape
        native = loops(d_features)
        if native is not None:
            d_gates, d_queries = native.attention_sequence_backward(
                d_features, acts, cells, tanhs, states, queries, weights, w_rec, w_query
            )
        else:
            factors, through_tanh, f = lstm_factors(acts, cells, tanhs)
            d_gates, d_queries = _attention_back(
                d_features, factors, through_tanh, f, states, queries, weights, w_rec, w_query
            )
        inputs = F.pad(torch.cat([contexts, states.view(k, b, t_len, r)], dim=-1), _BEFORE)
        d_w_rec = torch.bmm(inputs[:, :, :-1].reshape(k, b * t_len, 2 * r).mT,
                            d_gates.view(k, b * t_len, 4 * r))  # fmt: skip
        d_w_query = torch.bmm(states.view(k, b * t_len, r).mT, d_queries.view(k, b * t_len, r))
        d_bias = d_gates.sum((1, 2)).unsqueeze(1)
        return d_gates, d_bias, d_w_rec, d_w_query


def _attention_sequence(
    xw: Tensor, bias: Tensor, w_rec: Tensor, w_query: Tensor
) -> list[Tensor]:  # fmt: skip
    """``AttentionSequence``'s forward loop in Python (the reference of ``lstm.cpp``'s):
    the features, then what its backward keeps: the gates, cells and their tanh, contexts
    (K, B, T, .), the states and queries (K B, T, R), the attention's weights (K B, T, T)."""
    k, b, t_len, four = xw.shape
    r, rows = four // 4, k * b
    h = xw.new_zeros(k, b, r)
    c, context = torch.zeros_like(h), torch.zeros_like(h)
    acts = xw.new_empty(k, b, t_len, four)  # the gates after their sigmoid or tanh
    cells = xw.new_empty(k, b, t_len, r)
    tanhs = torch.empty_like(cells)
    contexts = torch.empty_like(cells)
    states = xw.new_empty(rows, t_len, r)  # h_tau, the past the attention reads
    queries = xw.new_empty(rows, t_len, r)
    weights = xw.new_zeros(rows, t_len, t_len)  # row t: step t's weights over tau <= t
    for t, xw_t in enumerate(xw.unbind(2)):
        gates = torch.baddbmm(bias, torch.cat([context, h], dim=-1), w_rec) + xw_t
        act, c, tanh_c, h = lstm_cell(gates, c)
        acts[:, :, t], cells[:, :, t], tanhs[:, :, t] = act, c, tanh_c
        states[:, t] = h.view(rows, r)
        past = states[:, : t + 1]
        query = torch.bmm(h, w_query).view(rows, 1, r)
        queries[:, t] = query.view(rows, r)
        w = torch.softmax((past * query).sum(-1, keepdim=True), dim=1)  # (K B, t + 1, 1)
        weights[:, t, : t + 1] = w.view(rows, t + 1)
        context = (w * past).sum(1).view(k, b, r)
        contexts[:, :, t] = context
    features = torch.cat([states.view(k, b, t_len, r), contexts], dim=-1)
    return [features, acts, cells, tanhs, contexts, states, queries, weights]


def _attention_back(
    d_features: Tensor, factors: Tensor, through_tanh: Tensor, f: Tensor, states: Tensor,
    queries: Tensor, weights: Tensor, w_rec: Tensor, w_query: Tensor,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``AttentionSequence``'s backward loop in Python (the reference of ``lstm.cpp``'s):
    dL/d gates (K, B, T, 4R) and dL/d queries (K, B, T, R)."""
    k, b, t_len, _ = d_features.shape
    r = states.shape[-1]
    rows = k * b
    d_direct, d_context_direct = d_features.split(r, dim=-1)
    # dL/dh_tau, gathered from the features, later steps' attention and queries
    d_states = d_direct.reshape(rows, t_len, r).clone()
    d_gates = torch.empty_like(factors)
    d_queries = d_features.new_empty(k, b, t_len, r)
    d_c = d_features.new_zeros(k, b, r)
    d_rec = d_features.new_zeros(k, b, 2 * r)  # dL/d[context_t ; h_t] through step t + 1
    w_rec_t, w_query_t = w_rec.mT, w_query.mT
    for t in reversed(range(t_len)):
        past, w = states[:, : t + 1], weights[:, t, : t + 1].unsqueeze(-1)
        d_context = (d_context_direct[:, :, t] + d_rec[..., :r]).view(rows, 1, r)
        # context = sum_tau w_tau h_tau, w = softmax(scores), scores_tau = h_tau . query
        d_w = (past * d_context).sum(-1, keepdim=True)  # (K B, t + 1, 1)
        d_scores = w * (d_w - (w * d_w).sum(1, keepdim=True))
        query = queries[:, t].view(rows, 1, r)
        d_states[:, : t + 1] += w * d_context + d_scores * query
        d_query = (d_scores * past).sum(1).view(k, b, r)
        d_queries[:, :, t] = d_query
        d_h = d_states[:, t].view(k, b, r) + d_rec[..., r:]
        d_h = torch.baddbmm(d_h, d_query, w_query_t)
        d_pre, d_c = lstm_step_back(d_h, d_c, factors[:, :, t], through_tanh[:, :, t])
        d_gates[:, :, t] = d_pre
        if t:
            d_c = d_c * f[:, :, t]
            d_rec = torch.bmm(d_pre, w_rec_t)
    return d_gates, d_queries


def _alstm_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``AttentionLSTM.forward``: the LSTM reads [x_t; c_{t-1}], then attends over its past
    states h_tau, tau <= t, with weights softmax(h_tau . (W_a h_t)); its features
    [h_t; c_t] go to the readout (``AttentionSequence``)."""
    assert isinstance(model, AttentionLSTM)
    size = model.input_size
    w_ih = params["cell.weight_ih"]  # (K, 4R, V + R): the input's columns, the context's
    bias = (params["cell.bias_ih"] + params["cell.bias_hh"]).unsqueeze(1)
    xw = _embed(w_ih[..., :size].mT, inputs)  # (K, B, T, 4R); ids pick their columns
    w_rec = torch.cat([w_ih[..., size:], params["cell.weight_hh"]], dim=-1).mT  # (K, 2R, 4R)
    features = AttentionSequence.apply(xw, bias, w_rec, params["query.weight"].mT)
    return readout(params, features)


FORWARDS[IRNN] = GroupedForward(
    _options, lambda model: isinstance(model, IRNN), _irnn_forward, _input_size
)
FORWARDS[OneHotLSTM] = GroupedForward(
    _options, lambda model: isinstance(model, OneHotLSTM), _lstm_forward, _input_size
)
FORWARDS[AttentionLSTM] = GroupedForward(
    _options, lambda model: isinstance(model, AttentionLSTM), _alstm_forward, _input_size
)
FORWARDS[DeepLSTM] = GroupedForward(
    _deep_lstm_options, _deep_lstm_ready, _deep_lstm_forward, _deep_lstm_input
)
FORWARDS[GRUNetwork] = GroupedForward(
    _gru_options, lambda model: isinstance(model, GRUNetwork), _gru_forward, _gru_input_size
)
