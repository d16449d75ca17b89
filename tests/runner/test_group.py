"""A trained experiment's runs trained as one batched model give what each gives alone."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from memrnn.experiments.base import RunOutput, TrainedExperiment
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.grefenstette2015 import Grefenstette2015
from memrnn.experiments.grefenstette2015.config import Grefenstette2015Config
from memrnn.experiments.trask2016 import Trask2016
from memrnn.experiments.trask2016.config import Trask2016Config
from memrnn.runner.config import config_from_mapping
from memrnn.runner.group import train_runs
from memrnn.runner.train import train


def _smoke(experiment: TrainedExperiment[Any], name: str) -> Any:
    spec = next(s for s in experiment.runs("smoke") if s.name == name)
    return config_from_mapping(experiment.config_type, spec.config)


def _same(together: RunOutput, alone: RunOutput) -> None:
    assert together.metrics.keys() == alone.metrics.keys()
    for name, value in alone.metrics.items():
        assert together.metrics[name] == pytest.approx(value, rel=1e-4, abs=1e-5), name
    assert [(s, n) for s, n, _ in together.history] == [(s, n) for s, n, _ in alone.history]
    for (_, name, v), (_, _, w) in zip(together.history, alone.history, strict=True):
        assert v == pytest.approx(w, rel=1e-4, abs=1e-5), name
    assert together.steps_done == alone.steps_done


def _members(config: TrainConfig) -> list[Any]:
    return [dataclasses.replace(config, seed=s, lr=lr) for s, lr in ((0, 0.01), (1, 0.003))]


@pytest.mark.parametrize(
    ("experiment", "name", "optimizer"),
    [
        (Trask2016(), "naive/seed0", None),
        (Grefenstette2015(), "reversal/stack/seed0", None),
        (Grefenstette2015(), "reversal/stack/seed0", "rmsprop"),  # the paper's optimiser
        (Trask2016(), "naive/seed0", "sgd"),  # each member has an optimiser of its own
    ],
)
def test_each_member_of_a_group_trains_as_it_would_alone(
    experiment: TrainedExperiment[Any], name: str, optimizer: str | None, tmp_path: Path
) -> None:
    config = dataclasses.replace(_smoke(experiment, name), device="cpu")
    if optimizer is not None:
        config = dataclasses.replace(config, optimizer=optimizer, weight_decay=0.0)
    configs = _members(config)
    # the key as a GPU sees it: Grefenstette et al.'s runs group only there
    keys = {experiment.group_key(dataclasses.replace(c, device="cuda")) for c in configs}
    assert len(keys) == 1 and None not in keys
    paths = [tmp_path / f"{k}.pt" for k in range(len(configs))]
    together = train_runs(experiment, configs, checkpoints=paths)
    for config, output in zip(configs, together, strict=True):
        alone = train(experiment, config)
        _same(output, alone)
        assert output.artifacts.pop("trained_with") == len(configs)  # its group's members
        assert output.artifacts.keys() == alone.artifacts.keys()
    assert all(path.exists() for path in paths)  # each member keeps its own checkpoint


def test_runs_that_cannot_stack_train_alone() -> None:
    trask, gref = Trask2016(), Grefenstette2015()
    assert trask.group_key(_smoke(trask, "tutorial-fix/seed0")) is None  # autoencoder
    assert gref.group_key(_smoke(gref, "reversal/lstm/seed0")) is None  # nn.LSTM
    assert gref.group_key(_smoke(gref, "reversal/queue/seed0")) is None  # gate noise
    config: Grefenstette2015Config = dataclasses.replace(
        _smoke(gref, "reversal/stack/seed0"), device="cuda"
    )
    assert gref.group_key(config) is not None
    assert gref.group_key(dataclasses.replace(config, optimizer="sgd")) is not None
    naive: Trask2016Config = _smoke(trask, "naive/seed0")
    assert trask.group_key(naive) != trask.group_key(dataclasses.replace(naive, steps=99))


def test_grefenstette_runs_group_on_a_gpu_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a CPU a group of these runs trains slower than its runs one after another."""
    gref = Grefenstette2015()
    config: Grefenstette2015Config = _smoke(gref, "reversal/stack/seed0")
    assert gref.group_key(dataclasses.replace(config, device="cpu")) is None
    assert gref.group_key(dataclasses.replace(config, device="cuda:1")) is not None
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    assert gref.group_key(dataclasses.replace(config, device="auto")) is None
    monkeypatch.setattr("torch.cuda.is_available", lambda: True)
    assert gref.group_key(dataclasses.replace(config, device="auto")) is not None
