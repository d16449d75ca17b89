"""Float32 stays within 1e-4 of float64 over 2048 steps.

The push-heavy case stacks about 1500 units of strength, where a suffix sum computed as
"total minus prefix" cancels large numbers; the reads must not notice.
"""

from __future__ import annotations

import pytest
import torch

from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack
from tests.structures.helpers import run_by_steps

STEPS = 2048
REGIMES = {"balanced": (0.0, 1.0, 0.0, 1.0), "push-heavy": (0.5, 1.0, 0.0, 0.3)}


def _gates(gen: torch.Generator, regime: str, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    push_lo, push_hi, pop_lo, pop_hi = REGIMES[regime]
    push = push_lo + (push_hi - push_lo) * torch.rand(
        batch, STEPS, generator=gen, dtype=torch.float64
    )
    pop = pop_lo + (pop_hi - pop_lo) * torch.rand(batch, STEPS, generator=gen, dtype=torch.float64)
    return push, pop


@pytest.mark.parametrize("regime", list(REGIMES))
@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
def test_float32_tracks_float64(memory: NeuralStack | NeuralQueue, regime: str) -> None:
    gen = torch.Generator().manual_seed(11)
    values = torch.randn(2, STEPS, 4, generator=gen, dtype=torch.float64)
    push, pop = _gates(gen, regime, 2)
    exact = memory.run(values, push, pop)
    inputs32 = [x.float() for x in (values, push, pop)]
    assert (memory.run(*inputs32).double() - exact).abs().max() <= 1e-4
    assert (run_by_steps(memory, *inputs32).double() - exact).abs().max() <= 1e-4


@pytest.mark.parametrize("regime", list(REGIMES))
def test_deque_float32_tracks_float64(regime: str) -> None:
    gen = torch.Generator().manual_seed(12)
    values = [torch.randn(1, STEPS, 4, generator=gen, dtype=torch.float64) for _ in range(2)]
    push_top, pop_top = _gates(gen, regime, 1)
    push_bot, pop_bot = _gates(gen, regime, 1)
    inputs = [*values, push_top, push_bot, pop_top, pop_bot]
    exact = NeuralDeque().run(*inputs)
    approx = NeuralDeque().run(*(x.float() for x in inputs))
    for got, want in zip(approx, exact, strict=True):
        assert (got.double() - want).abs().max() <= 1e-4
