"""One run's settings and the paper's neurons (Paassen et al. 2021, footnote 4)."""

from __future__ import annotations

from typing import get_args

import pytest

from memrnn.experiments.paassen2021.config import (
    DEEP_MODELS,
    LARGE_ESN,
    Paassen2021Config,
    Task,
    neurons_for,
    paper_neurons,
    row_label,
)
from memrnn.experiments.paassen2021.paper import MODELS
from memrnn.tasks.rsm_benchmarks import COPY_TASKS, TASKS


def test_the_literal_tasks_are_the_benchmarks() -> None:
    assert get_args(Task) == TASKS


def test_512_neurons_only_for_the_reservoirs_on_the_copy_tasks() -> None:
    """Footnote 4 of the paper: "256 neurons were insufficient for the copy task. In this
    case, we increased the number of neurons to 512", read as both copy tasks."""
    for model in MODELS:
        for task in TASKS:
            wanted = 512 if task in COPY_TASKS and model not in DEEP_MODELS else 256
            assert paper_neurons(model, task) == wanted
            assert neurons_for(Paassen2021Config(model=model, task=task)) == wanted
    assert neurons_for(Paassen2021Config(model="GRU", task="copy", neurons=17)) == 17


def test_the_appendix_esns_carry_their_neurons_in_their_label() -> None:
    assert row_label("CRJ-ESN", False) == "CRJ-ESN"
    assert row_label("CRJ-ESN", True) == f"CRJ-ESN-{LARGE_ESN}"


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="model: expected rand-ESN, CRJ-ESN, LDN-ESN, GRU"):
        Paassen2021Config(model="LSTM").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="task: expected latch, copy, repeat_copy, dyck1"):
        Paassen2021Config(task="dyck9").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="repeats: expected an int >= 1"):
        Paassen2021Config(repeats=0).validate()
    with pytest.raises(ValueError, match="search: expected an int >= 0"):
        Paassen2021Config(search=-1).validate()
