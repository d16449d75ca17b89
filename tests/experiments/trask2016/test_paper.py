"""The tutorial's numbers: the means of the gate traces it printed."""

from __future__ import annotations

import pytest

from memrnn.experiments.trask2016 import PAPER


def test_the_tutorials_gates_are_the_means_of_its_traces() -> None:
    gates = PAPER["gates"]
    assert list(gates) == ["naive", "tutorial-fix"]  # it ran no pop bias alone
    assert gates["naive"]["stack_use"].value == 0.0
    assert gates["naive"]["pop_encode"].value == pytest.approx(0.5169, abs=1e-4)
    assert gates["tutorial-fix"]["push_encode"].value == pytest.approx(0.9971, abs=1e-4)
    assert gates["tutorial-fix"]["stack_use"].value == pytest.approx(0.8665, abs=1e-4)
