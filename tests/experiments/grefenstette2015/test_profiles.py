"""The runs of each profile: one per cell of Figure 2a and start (quick, smoke), the
paper's grid of 350 runs, and their names."""

from __future__ import annotations

import pytest

from memrnn.cli import main
from memrnn.experiments.grefenstette2015 import (
    MODEL_NAMES,
    MODELS,
    PAPER,
    PAPER_DEPTHS,
    PAPER_HIDDEN,
    PAPER_LRS,
    Grefenstette2015,
    Grefenstette2015Config,
)
from memrnn.experiments.profiles import PROFILE_NAMES, Profile
from memrnn.tasks.transduction import TASKS


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_runs_are_distinct_and_valid(profile: Profile) -> None:
    runs = Grefenstette2015().runs(profile)
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs:
        Grefenstette2015Config(**spec.config).validate()
        assert (spec.tags["task"], spec.tags["model"]) == (
            spec.config["task"],
            spec.config["model"],
        )
    rows = {f"{s.config['task']} {MODEL_NAMES[s.config['model']]}" for s in runs}
    if profile != "smoke":
        assert rows == set(PAPER["figure2a"])
        assert {f"{t} {MODEL_NAMES[m]}" for t in TASKS for m in MODELS} == set(PAPER["figure2a"])


def test_quick_runs_are_named_by_task_model_start_and_seed_with_their_starts_settings() -> None:
    runs = {spec.name: spec for spec in Grefenstette2015().runs("quick")}
    assert len(runs) == 5 * 5  # five tasks: the four models, the DeQue twice
    even, top_open = runs["copy/deque-even/seed0"], runs["copy/deque-top-open/seed0"]
    assert (even.config["gate_noise"], even.config["push_bias"]) == (2.0, 0.0)
    assert (top_open.config["gate_noise"], top_open.config["push_bias"]) == (1.0, 1.0)
    assert top_open.config["bottom_push_bias"] == -2.0 and top_open.tags["start"] == "top-open"
    assert runs["reversal/stack/seed0"].config["optimizer"] == "adamw"
    assert runs["svo_sov/lstm/seed0"].config["weight_decay"] == 0.0


def test_the_paper_profile_is_the_papers_grid() -> None:
    runs = Grefenstette2015().runs("paper")
    # 5 tasks x (4 Deep LSTM depths + 3 memory models) x 2 hidden sizes x 5 learning rates
    assert len(runs) == 5 * (4 + 3) * 2 * 5 == 350
    coordinates = [
        (s.config["task"], s.config["model"], s.config["layers"], s.config["hidden"],
         s.config["lr"]) for s in runs
    ]  # fmt: skip
    expected = [
        (t, m, d, h, lr)
        for t in TASKS
        for m in MODELS
        for d in (PAPER_DEPTHS if m == "lstm" else (1,))
        for h in PAPER_HIDDEN
        for lr in PAPER_LRS
    ]
    assert sorted(coordinates) == sorted(expected) and len(set(coordinates)) == 350
    assert PAPER_DEPTHS == (1, 2, 4, 8) and PAPER_HIDDEN == (256, 512)
    assert PAPER_LRS == (5e-3, 1e-3, 5e-4, 1e-4, 5e-5)
    for spec in runs:
        c = spec.config
        assert (c["optimizer"], c["batch_size"], c["clip"]) == ("rmsprop", 10, 1.0)
        assert (c["embedding"], c["memory_width"], c["seed"]) == (64, 256, 0)
        assert (spec.task, spec.model) == (c["task"], MODEL_NAMES[c["model"]])
    names = {spec.name for spec in runs}
    assert {"copy/lstm4/h256-lr5e-04/seed0", "copy/stack/h512-lr1e-03/seed0"} <= names


def test_memrnn_list_names_every_paper_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "grefenstette2015", "--profile", "paper"]) == 0
    out = capsys.readouterr().out
    assert "paper 350 runs" in out
    assert all(spec.name in out for spec in Grefenstette2015().runs("paper"))
