"""One run's settings: the tasks and models by name, and the checks of lengths and noise."""

from __future__ import annotations

from typing import get_args

import pytest

from memrnn.experiments.grefenstette2015 import Grefenstette2015Config, Task
from memrnn.tasks.transduction import TASKS


def test_the_literal_tasks_are_the_transduction_tasks() -> None:
    assert get_args(Task) == TASKS


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="task: expected copy, reversal, bigram_flip"):
        Grefenstette2015Config(task="sort").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="model: expected lstm, stack, queue or deque"):
        Grefenstette2015Config(model="tape").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="need min <= max < test_min <= test_max"):
        Grefenstette2015Config(max_length=40, test_min_length=33).validate()
    with pytest.raises(ValueError, match="curriculum_start: expected an int >= 0"):
        Grefenstette2015Config(curriculum_start=-1).validate()
    with pytest.raises(ValueError, match="gate_noise: expected a standard deviation"):
        Grefenstette2015Config(gate_noise=-0.5).validate()
    with pytest.raises(ValueError, match=r"score_every: expected a multiple of eval_every \(100\)"):
        Grefenstette2015Config(score_every=250).validate()
    with pytest.raises(ValueError, match="set patience 0 \\(got 3\\)"):
        Grefenstette2015Config(score_every=500, patience=3).validate()
    with pytest.raises(ValueError, match="monitor: with score_every, one of curriculum, "):
        Grefenstette2015Config(score_every=500, monitor="test_coarse").validate()
    Grefenstette2015Config(score_every=500).validate()
