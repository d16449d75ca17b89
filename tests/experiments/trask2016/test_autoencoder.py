"""The tutorial's autoencoder side task, against its own code's arithmetic."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.experiments.trask2016 import autoencoder_loss
from memrnn.tasks.reversal import ReversalTask


def _tutorial_side_error(x: np.ndarray, xo: np.ndarray, o_prime_x: np.ndarray) -> float:
    """The side task's squared error for one sequence, as the "Hint: Autoencoder" code
    accumulates it: at each step i > 0 both heads' errors against the previous input."""
    total = 0.0
    for i in reversed(range(len(x))):
        if i > 0:
            xo_t_error = x[i - 1] - xo[i]
            x_o_prime_x_t_error = x[i - 1] - o_prime_x[i]
            total += 0.5 * np.sum(xo_t_error**2) + 0.5 * np.sum(x_o_prime_x_t_error**2)
    return total


def test_autoencoder_loss_is_the_tutorials_side_task() -> None:
    data = ReversalTask(4).sample(np.random.default_rng(0), 3, 4)
    gen = torch.Generator().manual_seed(0)
    from_h = torch.rand(data.inputs.shape, generator=gen, dtype=torch.float64).requires_grad_()
    from_o = torch.rand(data.inputs.shape, generator=gen, dtype=torch.float64).requires_grad_()
    inputs = data.inputs.double()
    loss = autoencoder_loss(inputs, from_h, from_o)
    # Each sequence's error divided by its length L = 4, as the tutorial's max_alpha / L,
    # then the mean over the batch.
    expected = np.mean(
        [
            _tutorial_side_error(*(a[b].detach().numpy() for a in (inputs, from_h, from_o))) / 4
            for b in range(3)
        ]
    )
    assert loss.item() == pytest.approx(expected, rel=1e-12)
    # Its gradient is the tutorial's error (x_{t-1} - y_t), negated and scaled by 1/(B L),
    # at every step but the first; the heads' sigmoids add the y (1 - y) of its deltas.
    loss.backward()
    want = torch.zeros_like(inputs)
    want[:, 1:] = -(inputs[:, :-1] - from_h.detach()[:, 1:]) / (3 * 4)
    assert torch.allclose(from_h.grad, want)  # type: ignore[arg-type]
    want[:, 1:] = -(inputs[:, :-1] - from_o.detach()[:, 1:]) / (3 * 4)
    assert torch.allclose(from_o.grad, want)  # type: ignore[arg-type]
    # The targets are the previous inputs, symbols and flags: predicting them is free
    # whatever the first step's outputs.
    perfect = torch.cat([torch.rand_like(inputs[:, :1]), inputs[:, :-1]], dim=1)
    assert float(autoencoder_loss(inputs, perfect, perfect)) == 0.0
    shifted = perfect.clone()
    shifted[1, 5, 2] += 0.5  # one channel of one step of one sequence
    assert float(autoencoder_loss(inputs, shifted, perfect)) == pytest.approx(0.5 * 0.25 / 4 / 3)


def test_autoencoder_loss_names_bad_shapes() -> None:
    inputs = torch.zeros(2, 6, 5)
    with pytest.raises(ValueError, match=r"from_o: expected the inputs' shape \(2, 6, 5\)"):
        autoencoder_loss(inputs, inputs, torch.zeros(2, 6, 4))
    with pytest.raises(ValueError, match="inputs: expected"):
        autoencoder_loss(torch.zeros(2, 1, 5), torch.zeros(2, 1, 5), torch.zeros(2, 1, 5))
