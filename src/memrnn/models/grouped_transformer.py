"""The grouped forward (``memrnn.models.grouped``) of ``CausalTransformer``, the causal
Transformer encoder of Deletang et al. (2023), section 4.

``nn.TransformerEncoderLayer`` runs one model's weights; K members' layers are written out
here (Vaswani et al. 2017, section 3): every projection is a batched product over the
members (``linear`` on stacked weights), and the scaled dot-product attention, which acts
on each sequence alone, runs over all K B sequences at once (``memrnn.models.attention``:
compiled on a CPU; at the matrix's sizes, heads of 8 units over tens of steps, PyTorch's
fused CPU attention took longer than the whole rest of the step). Only members without
dropout group: dropout draws random numbers in training mode.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.models.attention import self_attention
from memrnn.models.controller.sequence import linear
from memrnn.models.grouped import FORWARDS, GroupedForward, Params, _embed
from memrnn.models.positional import alibi_bias, causal_bias, sinusoidal_encoding
from memrnn.models.transformer import CausalTransformer


def _layers(model: CausalTransformer) -> list[nn.TransformerEncoderLayer]:
    layers = model.encoder.layers
    return [layer for layer in layers if isinstance(layer, nn.TransformerEncoderLayer)]


def _options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, CausalTransformer)
    first = _layers(model)[0]
    return (model.input_size, model.output_size, model.heads, model.positional,
            first.norm_first, len(_layers(model)), first.norm1.eps)  # fmt: skip


def _ready(model: nn.Module) -> bool:
    """No dropout anywhere: in training mode it would draw random numbers."""
    if not isinstance(model, CausalTransformer):
        return False
    return all(m.p == 0 for m in model.modules() if isinstance(m, nn.Dropout)) and all(
        layer.self_attn.dropout == 0 for layer in _layers(model)
    )


def _input(model: nn.Module) -> int:
    assert isinstance(model, CausalTransformer)
    return model.input_size


def _norm(x: Tensor, params: Params, name: str, eps: float) -> Tensor:
    """Each member's layer normalisation (its gain and bias) on its rows of x (K, ..., d)."""
    view = (x.shape[0],) + (1,) * (x.ndim - 2) + (x.shape[-1],)
    gain, bias = params[f"{name}.weight"].view(view), params[f"{name}.bias"].view(view)
    return torch.addcmul(bias, F.layer_norm(x, x.shape[-1:], eps=eps), gain)


def _attention(x: Tensor, params: Params, at: str, heads: int, mask: Tensor) -> Tensor:
    """Multi-head self-attention of every member on its own sequences x (K, B, T, d), the
    causal mask (or ALiBi's biases, ``mask``) on the scores."""
    k, b, t_len, d = x.shape
    at = f"{at}.self_attn"
    qkv = linear(x, params[f"{at}.in_proj_weight"], params[f"{at}.in_proj_bias"])
    mixed = self_attention(qkv.view(k * b, t_len, 3 * d), mask, heads).view(k, b, t_len, d)
    return linear(mixed, params[f"{at}.out_proj.weight"], params[f"{at}.out_proj.bias"])


def _feedforward(x: Tensor, params: Params, at: str) -> Tensor:
    hidden = linear(x, params[f"{at}.linear1.weight"], params[f"{at}.linear1.bias"])
    return linear(hidden.relu(), params[f"{at}.linear2.weight"], params[f"{at}.linear2.bias"])


def _forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``CausalTransformer.forward``: the embedding, the positional encoding, the encoder
    layers (pre- or post-LN), the final norm of a pre-LN stack and the readout."""
    assert isinstance(model, CausalTransformer)
    x = _embed(params["embedding.weight"], inputs)
    t_len, d = x.shape[2:]
    if model.positional == "sinusoidal":
        x = x + sinusoidal_encoding(t_len, d, dtype=x.dtype, device=x.device)
    # ALiBi's (heads, T, T) biases broadcast over the K B sequences; else the causal mask
    mask = (
        alibi_bias(model.heads, t_len, dtype=x.dtype, device=x.device)
        if model.positional == "alibi"
        else causal_bias(t_len, dtype=x.dtype, device=x.device)
    )
    for i, layer in enumerate(_layers(model)):
        at, eps = f"encoder.layers.{i}", layer.norm1.eps
        if layer.norm_first:
            normed = _norm(x, params, f"{at}.norm1", eps)
            x = x + _attention(normed, params, at, model.heads, mask)
            x = x + _feedforward(_norm(x, params, f"{at}.norm2", eps), params, at)
        else:
            x = _norm(x + _attention(x, params, at, model.heads, mask), params, f"{at}.norm1", eps)
            x = _norm(x + _feedforward(x, params, at), params, f"{at}.norm2", eps)
    final = model.encoder.norm  # a pre-LN stack's last normalisation
    if isinstance(final, nn.LayerNorm):
        x = _norm(x, params, "encoder.norm", final.eps)
    return linear(x, params["readout.weight"], params["readout.bias"])


FORWARDS[CausalTransformer] = GroupedForward(_options, _ready, _forward, _input)
