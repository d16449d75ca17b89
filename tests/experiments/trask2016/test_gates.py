"""stack_use, the measure of whether the gates follow the reversal algorithm."""

from __future__ import annotations

from memrnn.experiments.trask2016 import stack_use


def test_stack_use_scores_the_algorithm() -> None:
    assert stack_use(1.0, 0.0, 0.0, 1.0) == 1.0  # push while reading, pop while writing
    assert stack_use(1.0, 0.5, 1.0, 0.5) == 0.0  # the tutorial's "half at a time"
    assert stack_use(0.0, 1.0, 1.0, 0.0) == -1.0  # the opposite
