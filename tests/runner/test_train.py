"""The training loop: learns, is deterministic, resumes exactly, stops early."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest
import torch

from memrnn.errors import UserError
from memrnn.experiments.base import (
    FittedExperiment,
    Profile,
    RunContext,
    RunOutput,
    RunRecord,
    RunSpec,
)
from memrnn.experiments.config import TrainConfig, make_optimizer
from memrnn.experiments.tables import Table
from memrnn.runner.train import Progress, run, train
from tests.runner.toy import ToyConfig, ToyExperiment

CONFIG = ToyConfig(seed=3, steps=60, lr=0.05, eval_every=10, checkpoint_every=10, device="cpu")


def test_learns_and_records_history() -> None:
    output = train(ToyExperiment(), CONFIG)
    first_loss = next(v for s, n, v in output.history if n == "loss")
    assert output.metrics["loss"] < 0.1 * first_loss
    assert output.steps_done == 60 and output.metrics["steps"] == 60
    assert [s for s, n, _ in output.history if n == "loss"] == [10, 20, 30, 40, 50, 60]
    assert len(output.artifacts["weights"]) == 4


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    a, b = train(ToyExperiment(), CONFIG), train(ToyExperiment(), CONFIG)
    c = train(ToyExperiment(), dataclasses.replace(CONFIG, seed=4))
    assert a.metrics == b.metrics and a.history == b.history
    assert a.metrics["loss"] != c.metrics["loss"]


class _Crash(Exception):
    pass


@pytest.mark.parametrize("crash_at", [25, 30, 60])
def test_resume_after_a_crash_matches_an_uninterrupted_run(tmp_path: Path, crash_at: int) -> None:
    whole = train(ToyExperiment(), CONFIG)

    def crash(progress: Progress) -> None:
        if progress.step == crash_at:
            raise _Crash

    checkpoint = tmp_path / "run.pt"
    with pytest.raises(_Crash):
        train(ToyExperiment(), CONFIG, checkpoint=checkpoint, on_progress=crash)
    resumed = train(ToyExperiment(), CONFIG, checkpoint=checkpoint, resume=True)
    assert resumed.metrics == whole.metrics
    assert resumed.history == whole.history
    assert resumed.artifacts == whole.artifacts


def test_resuming_a_finished_run_changes_nothing(tmp_path: Path) -> None:
    checkpoint = tmp_path / "run.pt"
    first = train(ToyExperiment(), CONFIG, checkpoint=checkpoint)
    again = train(ToyExperiment(), CONFIG, checkpoint=checkpoint, resume=True)
    assert again.metrics == first.metrics and again.history == first.history


def test_early_stopping() -> None:
    # lr so small that evaluations barely move: with monitor_mode "max" on the loss, the
    # first evaluation is the best and patience 2 stops the run at the third.
    config = dataclasses.replace(CONFIG, monitor="loss", monitor_mode="max", patience=2)
    output = train(ToyExperiment(), config)
    assert output.metrics["stopped_early"] == 1.0
    assert output.steps_done == 30


def test_bad_monitor_is_named_before_training(tmp_path: Path) -> None:
    checkpoint = tmp_path / "run.pt"
    with pytest.raises(UserError, match="monitor: toy's runs report no metric 'accuracy'; they"):
        train(
            ToyExperiment(), dataclasses.replace(CONFIG, monitor="accuracy"), checkpoint=checkpoint
        )
    assert not checkpoint.exists()  # refused before any step


def test_a_missing_device_is_named_before_training() -> None:
    wanted = f"cuda:{torch.cuda.device_count()}"  # one past the last, on any machine
    with pytest.raises(UserError, match=f"device: {wanted} was asked for but"):
        train(ToyExperiment(), dataclasses.replace(CONFIG, device=wanted))


def test_progress_reports_every_step() -> None:
    seen: list[Progress] = []
    train(ToyExperiment(), dataclasses.replace(CONFIG, steps=12), on_progress=seen.append)
    assert [p.step for p in seen] == list(range(1, 13))
    assert seen[9].metrics is not None and seen[8].metrics is None
    assert all(p.sequences_per_second > 0 for p in seen)


@pytest.mark.parametrize("name", ["adam", "adamw", "rmsprop", "sgd"])
def test_make_optimizer_applies_learning_rate_and_weight_decay(name: str) -> None:
    config = dataclasses.replace(CONFIG, optimizer=name, lr=0.1, weight_decay=0.5)
    weight = torch.nn.Parameter(torch.full((3,), 2.0))
    optimizer = make_optimizer(config, [weight])
    assert optimizer.defaults["lr"] == 0.1 and optimizer.defaults["weight_decay"] == 0.5
    weight.grad = torch.zeros(3)  # a zero loss gradient: only the decay moves the weight
    optimizer.step()
    if name == "adamw":  # decoupled: w <- w (1 - lr wd)
        assert torch.equal(weight.detach(), torch.full((3,), 2.0 * (1 - 0.1 * 0.5)))
    elif name == "sgd":  # L2: w <- w - lr wd w
        assert torch.allclose(weight.detach(), torch.full((3,), 2.0 - 0.1 * 0.5 * 2.0))
    else:  # adaptive steps of an L2 gradient: the weight moves toward 0
        assert bool((weight.detach() < 2.0).all())


def test_adamw_without_decay_is_adam() -> None:
    weights = [torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0])) for _ in range(2)]
    optimizers = [
        make_optimizer(dataclasses.replace(CONFIG, optimizer=name), [w])
        for name, w in zip(("adam", "adamw"), weights, strict=True)
    ]
    for step in range(5):
        for w, optimizer in zip(weights, optimizers, strict=True):
            w.grad = torch.tensor([0.3, -0.1, 0.7]) * (step + 1)
            optimizer.step()
    assert torch.equal(weights[0].detach(), weights[1].detach())


class _Fitted(FittedExperiment[ToyConfig]):
    """The toy's runs, carried out by the experiment itself."""

    name = "fitted-toy"
    title = reproduces = "a test"
    config_type = ToyConfig

    def __init__(self) -> None:
        self.seen: list[RunContext] = []

    def runs(self, profile: Profile) -> list[RunSpec]:
        return ToyExperiment().runs(profile)

    def fit_run(self, config: ToyConfig, context: RunContext) -> RunOutput:
        self.seen.append(context)
        return RunOutput({"loss": float(config.width)})

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return []


def test_run_dispatches_on_the_kind_of_experiment(tmp_path: Path) -> None:
    trained, alone = run(ToyExperiment(), CONFIG, data=tmp_path), train(ToyExperiment(), CONFIG)
    assert (trained.metrics, trained.history) == (alone.metrics, alone.history)
    fitted = _Fitted()
    assert run(fitted, CONFIG, data=tmp_path).metrics == {"loss": 4.0}
    (context,) = fitted.seen
    assert context == RunContext(torch.device("cpu"), tmp_path)


def test_run_refuses_another_experiments_config() -> None:
    with pytest.raises(TypeError, match="config: toy needs a ToyConfig, got TrainConfig"):
        run(ToyExperiment(), TrainConfig())
    with pytest.raises(ValueError, match="steps: expected an int >= 1"):
        run(_Fitted(), dataclasses.replace(CONFIG, steps=0))
