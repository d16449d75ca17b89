"""The trask2016 experiment: the scale its report states for each profile."""

from __future__ import annotations

from memrnn.experiments.trask2016 import Trask2016
from memrnn.experiments.trask2016.paper import TUTORIAL_SCALE


def test_the_scale_is_set_beside_the_tutorials_but_for_smoke() -> None:
    experiment = Trask2016()
    smoke = experiment.scale("smoke")
    assert smoke.startswith("1 seed per variant; 20 steps of 10 sequences, lengths 2-3")
    assert "tutorial" not in smoke
    quick = experiment.scale("quick")
    assert quick.startswith("5 seeds per variant; 1500 steps of 50 sequences, lengths 2-6")
    assert quick.endswith(" " + TUTORIAL_SCALE)
    assert TUTORIAL_SCALE.startswith("The tutorial trained")
    assert experiment.scale("paper").startswith("10 seeds per variant; 15000 steps")
    for text in (experiment.reproduces, smoke, quick):
        assert "seed 0" not in text
