"""Position information for a causal Transformer, computed for any length.

Deletang et al. (2023), section 4, compare a Transformer's length generalisation under
several positional encodings; here are two of them beside the causal mask they share:

- ``sinusoidal_encoding``: the sin/cos encoding of Vaswani et al. (2017), section 3.5,
  added to the input embeddings. It is a formula of the position, so a test sequence
  longer than any seen in training gets encodings too (never a fixed table's end).
- ``alibi_bias``: the linear biases of Press, Smith and Lewis (2022, "Train Short, Test
  Long", ALiBi), section 3, added to the attention scores after their 1/sqrt(d_k)
  scaling; no encoding is added to the embeddings.

Both count positions from the first step, so the encoding of step t does not depend on
how many steps follow it: a model that reads them stays causal.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from memrnn.validation import check_sizes

ALIBI_SPAN = 8.0
"""Press et al. (2022), section 3: with n heads the slopes run 2^(-8/n), ..., 2^-8."""


def sinusoidal_encoding(
    steps: int,
    width: int,
    *,
    dtype: torch.dtype = torch.float32,
    device: torch.device | None = None,
) -> Tensor:
    """The encodings (steps, width) of positions 0 .. steps - 1 (Vaswani et al. 2017,
    section 3.5): PE(pos, 2i) = sin(pos / 10000^(2i/width)) and PE(pos, 2i+1) =
    cos(pos / 10000^(2i/width)); for an odd ``width`` the last column is a sine.

    Computed in float64 and cast to ``dtype``, so that long positions keep their phase.

    Raises:
        ValueError: naming ``steps`` or ``width`` if it is not an int >= 1.
    """
    check_sizes(steps=steps, width=width)
    even = torch.arange(0, width, 2, dtype=torch.float64, device=device)  # the 2i
    angles = torch.outer(
        torch.arange(steps, dtype=torch.float64, device=device), 10000.0 ** (-even / width)
    )
    encoding = torch.empty(steps, width, dtype=torch.float64, device=device)
    encoding[:, 0::2] = torch.sin(angles)
    encoding[:, 1::2] = torch.cos(angles[:, : width // 2])
    return encoding.to(dtype)


def causal_bias(
    steps: int, *, dtype: torch.dtype = torch.float32, device: torch.device | None = None
) -> Tensor:
    """The additive causal mask (steps, steps): 0 where key j <= query i, -inf after, so
    that step i attends to steps 0 .. i alone.

    Raises:
        ValueError: naming ``steps`` if it is not an int >= 1.
    """
    check_sizes(steps=steps)
    return torch.triu(torch.full((steps, steps), -math.inf, dtype=dtype, device=device), diagonal=1)


def alibi_slopes(heads: int) -> list[float]:
    """The head-specific slopes m of ALiBi (Press et al. 2022, section 3).

    For a power of two n, the geometric sequence 2^(-8/n), 2^(-16/n), ..., 2^-8 (1/2,
    1/4, ..., 1/256 for 8 heads). Otherwise, as in the authors' released code, the
    slopes of the largest power of two p < n, then every other slope of 2p (those that
    fall between them) until there are n.

    Raises:
        ValueError: naming ``heads`` if it is not an int >= 1.
    """
    check_sizes(heads=heads)
    power = 2 ** int(math.log2(heads))
    slopes = _geometric_slopes(power)
    if power < heads:
        slopes += _geometric_slopes(2 * power)[0::2][: heads - power]
    return slopes


def _geometric_slopes(heads: int) -> list[float]:
    start = 2.0 ** (-ALIBI_SPAN / heads)
    return [start ** (h + 1) for h in range(heads)]


def alibi_bias(
    heads: int,
    steps: int,
    *,
    causal: bool = True,
    dtype: torch.dtype = torch.float32,
    device: torch.device | None = None,
) -> Tensor:
    """The ALiBi biases (heads, steps, steps) (Press et al. 2022, section 3): -m_h (i - j)
    for query i and key j <= i, where m_h is head h's slope (``alibi_slopes``), and -inf
    for j > i. Not ``causal``: Delétang et al.'s (2023) encoder form, -m_h (|i - j| -
    1/2) for j < i and -m_h |i - j| for j >= i, the half telling left from right.

    Raises:
        ValueError: naming ``heads`` or ``steps`` if it is not an int >= 1.
    """
    check_sizes(heads=heads, steps=steps)
    positions = torch.arange(steps, dtype=dtype, device=device)
    distance = positions[:, None] - positions[None, :]  # i - j
    slopes = torch.tensor(alibi_slopes(heads), dtype=dtype, device=device)[:, None, None]
    if causal:
        return -slopes * distance + causal_bias(steps, dtype=dtype, device=device)
    return -slopes * (distance.abs() - 0.5 * (distance > 0).to(dtype))
