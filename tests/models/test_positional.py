"""Positional encodings: the sin/cos formula of Vaswani et al. (2017), the ALiBi slopes and
biases of Press et al. (2022), the causal mask; computed for any length."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from memrnn.models.positional import alibi_bias, alibi_slopes, causal_bias, sinusoidal_encoding


@pytest.mark.parametrize("width", [6, 7, 32])
def test_sinusoidal_encoding_is_the_formula(width: int) -> None:
    encoding = sinusoidal_encoding(6001, width, dtype=torch.float64)
    assert encoding.shape == (6001, width)
    for pos in (0, 1, 5, 499, 6000):  # far past any training length too
        for column in range(width):
            angle = pos / 10000.0 ** ((column - column % 2) / width)
            expected = math.sin(angle) if column % 2 == 0 else math.cos(angle)
            assert encoding[pos, column].item() == pytest.approx(expected, abs=1e-12)


def test_sinusoidal_encoding_of_a_step_does_not_depend_on_the_length() -> None:
    assert torch.equal(sinusoidal_encoding(500, 8)[:12], sinusoidal_encoding(12, 8))
    assert sinusoidal_encoding(3, 4).dtype == torch.float32
    assert sinusoidal_encoding(3, 4, dtype=torch.float16).dtype == torch.float16


def test_alibi_slopes_are_the_papers_geometric_sequences() -> None:
    assert alibi_slopes(4) == [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8]
    assert alibi_slopes(8) == [2.0**-k for k in range(1, 9)]  # Press et al. (2022), sec. 3
    sixteen = alibi_slopes(16)  # "1/2^0.5, 1/2^1, 1/2^1.5, ..., 1/2^8"
    assert sixteen == pytest.approx([2.0 ** (-k / 2) for k in range(1, 17)], rel=1e-12)
    assert alibi_slopes(1) == [2.0**-8]
    # not a power of two: the 4-head slopes, then those of 8 heads that fall between them
    assert alibi_slopes(6) == [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3]


@pytest.mark.parametrize("heads", [4, 8])
def test_alibi_bias_is_minus_the_slope_times_the_distance_under_the_causal_mask(
    heads: int,
) -> None:
    steps = 7
    bias = alibi_bias(heads, steps, dtype=torch.float64)
    assert bias.shape == (heads, steps, steps)
    for h, slope in enumerate(alibi_slopes(heads)):
        for i in range(steps):
            for j in range(steps):
                expected = -slope * (i - j) if j <= i else -math.inf
                assert bias[h, i, j].item() == expected


def test_their_encoders_alibi_is_the_distance_with_a_half_for_the_left() -> None:
    """Delétang et al.'s ``compute_alibi_encodings_biases``, written as they write it."""
    steps = 6
    tri = [np.tri(steps, steps, k=-i) for i in range(1, steps)]
    theirs = -sum(tri) - sum(t.T for t in tri) + 0.5 * np.tri(steps, steps, k=-1)
    slopes = np.array(alibi_slopes(4))[:, None, None]
    ours = alibi_bias(4, steps, causal=False, dtype=torch.float64)
    np.testing.assert_allclose(ours.numpy(), theirs * slopes, rtol=1e-12)


def test_the_causal_mask_hides_later_steps_alone() -> None:
    mask = causal_bias(4)
    assert mask.tolist() == [
        [0.0, -math.inf, -math.inf, -math.inf],
        [0.0, 0.0, -math.inf, -math.inf],
        [0.0, 0.0, 0.0, -math.inf],
        [0.0, 0.0, 0.0, 0.0],
    ]
    assert torch.equal(alibi_bias(2, 300)[:, :9, :9], alibi_bias(2, 9))


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: sinusoidal_encoding(0, 4), "steps"),
        (lambda: sinusoidal_encoding(3, 0), "width"),
        (lambda: causal_bias(-1), "steps"),
        (lambda: alibi_slopes(0), "heads"),
        (lambda: alibi_bias(True, 3), "heads"),
        (lambda: alibi_bias(2, 2.0), "steps"),
    ],
)
def test_bad_sizes_are_named(call: object, name: str) -> None:
    with pytest.raises(ValueError, match=rf"^{name}: expected an int >= 1, got "):
        call()  # type: ignore[operator]
