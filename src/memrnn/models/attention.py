"""Multi-head scaled dot-product self-attention (Vaswani et al. 2017, section 3.2) of the
grouped causal Transformer (``memrnn.models.grouped_transformer``), from the stacked
query, key and value projections of every sequence.

On a CPU, in float32 or float64, it runs compiled (``attention.cpp``, built with the
time loops by ``memrnn.models.controller.native``): one autograd node whose forward and
hand-written backward do each sequence-head whole, reading and writing the projections'
layout directly. At the matrix's sizes (heads of 8 units, tens of steps), where ATen's
batched products of such small matrices, the heads' transposes and the softmax's passes
took about half of the step, the attention ran 1.8 times as fast and the step 1.3 times
on a 2-core CPU (``benchmarks/attention.py``). Elsewhere,
and under ``torch.compile``, ``reference_attention`` runs: ATen's products and softmax,
which the tests compare the compiled kernels with. The two round differently.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torch.autograd.function import once_differentiable

from memrnn.models.controller.native import loops


def self_attention(qkv: Tensor, mask: Tensor, heads: int) -> Tensor:
    """softmax(q k^T / sqrt(d_h) + mask) v for every sequence and head.

    Args:
        qkv: (R, T, 3 d) the queries, keys and values of R sequences, concatenated in
            that order along the last dimension (``nn.MultiheadAttention``'s in-projection),
            each split into ``heads`` heads of d_h = d / heads units.
        mask: the additive mask on the scores, (T, T) or (heads, T, T) (ALiBi's
            biases); -inf where a query may not look.
        heads: the number of heads.

    Returns:
        (R, T, d) the heads' outputs, concatenated.
    """
    if loops(qkv) is not None and not torch.compiler.is_compiling():
        mask = mask if mask.ndim == 3 else mask.unsqueeze(0)
        out: Tensor = CompiledAttention.apply(qkv.contiguous(), mask.contiguous(), heads)
        return out
    return reference_attention(qkv, mask, heads)


def reference_attention(qkv: Tensor, mask: Tensor, heads: int) -> Tensor:
    """``self_attention`` by ATen's operations: two batched products and a softmax over
    all sequence-heads at once."""
    rows, steps, d = qkv.shape[0], qkv.shape[1], qkv.shape[2] // 3
    q, key, v = (
        part.reshape(rows, steps, heads, d // heads).transpose(1, 2)
        for part in qkv.chunk(3, dim=-1)
    )
    scores = torch.matmul(q, key.transpose(-1, -2)) * (d // heads) ** -0.5 + mask
    mixed = torch.matmul(torch.softmax(scores, dim=-1), v)
    return mixed.transpose(1, 2).reshape(rows, steps, d)


class CompiledAttention(torch.autograd.Function):
    """``self_attention`` by the compiled kernels, as one autograd node: (qkv (R, T, 3 d),
    mask (1 or heads, T, T), both contiguous, and the number of heads) -> (R, T, d). It
    keeps qkv, the softmax weights (R heads, T, T) and the mask for its backward. The mask
    gets no gradient."""

    @staticmethod
    def forward(ctx: Any, qkv: Tensor, mask: Tensor, heads: int) -> Tensor:
        native = loops(qkv)
        assert native is not None  # self_attention checked
        scale = (qkv.shape[-1] // 3 // heads) ** -0.5
        out, weights = native.attention_forward(qkv, mask, heads, scale)
        ctx.save_for_backward(qkv, weights, mask)
        ctx.heads, ctx.scale = heads, scale
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, d_out: Tensor) -> tuple[Tensor, None, None]:
        qkv, weights, mask = ctx.saved_tensors
        native = loops(qkv)
        assert native is not None
        d_qkv = native.attention_backward(qkv, weights, d_out.contiguous(), mask, ctx.heads,
                                          ctx.scale)  # fmt: skip
        return d_qkv, None, None
