"""The paper's numbers and settings of hewitt2020: the LSTM size and learning rates."""

from __future__ import annotations

from memrnn.constructions import theorem_units
from memrnn.experiments.hewitt2020 import Hewitt2020, learning_rate, lstm_units


def test_units() -> None:
    assert lstm_units(2, 3) == 6 and lstm_units(8, 3) == 24 and lstm_units(128, 5) == 100
    assert theorem_units("srnn-log", 5, 3) == 48


def test_learning_rates_are_appendix_h3s() -> None:
    """0.01, and 0.001 for 2e7 tokens and for k = 128 from 2e6 tokens."""
    assert learning_rate(2, 2_000_000) == 0.01 and learning_rate(32, 2_000_000) == 0.01
    assert learning_rate(2, 20_000_000) == 0.001 and learning_rate(128, 2_000_000) == 0.001
    assert learning_rate(128, 200_000) == 0.01
    lms = [s for s in Hewitt2020().runs("paper") if s.config["part"] == "lm"]
    slow = {(s.config["k"], s.config["train_tokens"]) for s in lms if s.config["lr"] == 0.001}
    assert slow == {(128, 2_000_000)} | {(k, 20_000_000) for k in (2, 8, 32, 128)}
