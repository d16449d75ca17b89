"""The trask2016 experiment: its runs, its metrics and its tables."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from memrnn.experiments.base import RunRecord, TrainConfig
from memrnn.experiments.trask2016 import (
    GATE_COLUMNS,
    TUTORIAL_GATES,
    VARIANTS,
    Trask2016,
    Trask2016Config,
    stack_use,
)


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_runs_cover_every_variant_and_seed(profile: str) -> None:
    runs = Trask2016().runs(profile)  # type: ignore[arg-type]
    assert len({spec.key for spec in runs}) == len(runs)
    variants = {spec.name.split("/")[0] for spec in runs}
    assert variants == set(VARIANTS)
    for spec in runs:
        config = Trask2016Config(
            **{k: tuple(v) if isinstance(v, list) else v for k, v in spec.config.items()}
        )
        config.validate()
        assert (config.push_bias, config.pop_bias) == VARIANTS[spec.name.split("/")[0]]
        assert spec.profile == profile and spec.seed == config.seed


def test_stack_use_scores_the_algorithm() -> None:
    assert stack_use(1.0, 0.0, 0.0, 1.0) == 1.0  # push while reading, pop while writing
    assert stack_use(1.0, 0.5, 1.0, 0.5) == 0.0  # the tutorial's "half at a time"
    assert stack_use(0.0, 1.0, 1.0, 0.0) == -1.0  # the opposite
    assert TUTORIAL_GATES["naive"]["stack_use"] == 0.0
    assert TUTORIAL_GATES["naive"]["pop_encode"] == pytest.approx(0.5169, abs=1e-4)
    assert TUTORIAL_GATES["tutorial-fix"]["push_encode"] == pytest.approx(0.9971, abs=1e-4)
    assert TUTORIAL_GATES["tutorial-fix"]["stack_use"] == pytest.approx(0.8665, abs=1e-4)


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="min_length: need 1 <= min_length <= max_length"):
        Trask2016Config(min_length=5, max_length=3).validate()
    with pytest.raises(ValueError, match="cell: expected rnn or lstm"):
        Trask2016Config(cell="gru").validate()
    with pytest.raises(TypeError, match="trask2016 needs a Trask2016Config"):
        Trask2016().build(TrainConfig(), torch.device("cpu"))


def test_an_untrained_run_evaluates_every_metric() -> None:
    config = Trask2016Config(eval_size=8, max_length=4, long_length=6)
    torch.manual_seed(0)
    run = Trask2016().build(config, torch.device("cpu"))
    with torch.no_grad():
        metrics = run.evaluate(np.random.default_rng(0))
        artifacts = run.artifacts(np.random.default_rng(1))
    expected = {
        "loss",
        "train_token_acc",
        "train_seq_acc",
        "long_token_acc",
        "long_seq_acc",
        *GATE_COLUMNS,
    }
    assert set(metrics) == expected
    for key in expected - {"loss", "stack_use"}:
        assert 0.0 <= metrics[key] <= 1.0, key
    assert artifacts["lengths"] == list(range(1, 9))
    assert len(artifacts["trace_push"]) == 2 * len(artifacts["trace_sequence"]) == 8


def _record(name: str, seed: int, use: float, long_acc: float) -> RunRecord:
    spec = next(s for s in Trask2016().runs("quick") if s.name == f"{name}/seed{seed}")
    metrics = {key: 0.5 for key in GATE_COLUMNS} | {
        "stack_use": use,
        "long_seq_acc": long_acc,
        "long_token_acc": 1.0,
        "train_token_acc": 1.0,
        "train_seq_acc": 1.0,
    }
    return RunRecord(spec, metrics, {}, "test", 2.0)


def test_tables_average_and_count_over_seeds() -> None:
    records = [
        _record("naive", 0, 0.9, 0.95),
        _record("naive", 1, 0.1, 0.2),
        _record("pop-bias", 0, 0.8, 0.99),
    ]
    tables = {table.name: table for table in Trask2016().tables(records)}
    gates, accuracy, seeds = tables["gates"], tables["accuracy"], tables["seeds"]
    assert gates.rows["naive"]["stack_use"].value == pytest.approx(0.5)
    assert gates.rows["naive"]["stack_use"].paper == 0.0
    assert gates.rows["naive"]["stack_use"].seeds == (0, 1)
    assert gates.rows["naive"]["stack_use"].wall_seconds == 4.0
    assert gates.rows["pop-bias"]["pop_encode"].paper is None  # the tutorial has no such run
    assert accuracy.rows["naive"]["long_seq_acc"].value == pytest.approx(0.575)
    assert seeds.rows["naive"]["seeds"].value == 2
    assert seeds.rows["naive"]["use the stack"].value == 1
    assert seeds.rows["naive"]["generalise"].value == 1
    assert seeds.rows["pop-bias"]["generalise"].value == 1


def test_configs_round_trip_through_json() -> None:
    config = Trask2016Config(seed=3)
    assert Trask2016Config(**config.to_dict()) == config
    assert dataclasses.asdict(config)["lr"] == 0.01
