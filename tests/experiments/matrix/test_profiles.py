"""The matrix's profiles: every run valid, who meets whom, and a user's own task joins the
paper profile by being registered."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch

from memrnn.experiments.matrix import Matrix
from memrnn.experiments.matrix.config import RESERVOIR_MODELS
from memrnn.experiments.matrix.protocol import (
    LEFT_OUT,
    every_model,
    every_task,
    protocol,
    reads,
)
from memrnn.models.registry import model_names
from memrnn.tasks import Task, TaskBatch, make_task, register_task, task_names
from memrnn.tasks import registry as task_registry


def test_every_run_of_every_profile_is_valid_and_reads_its_task() -> None:
    for profile in ("smoke", "quick", "paper"):
        runs = Matrix().runs(profile)
        assert runs and len({r.key for r in runs}) == len(runs)
        assert all(reads(r.config["model"], r.config["task"]) for r in runs)
        assert all(r.config["test_max"] > r.config["train_max"] for r in runs)


def test_the_paper_profile_has_every_registered_model_and_task_but_those_left_out() -> None:
    runs = Matrix().runs("paper")
    fitted = set(RESERVOIR_MODELS)  # Paassen et al.'s ESN and RSM, fitted, not registered
    assert {r.config["model"] for r in runs} == set(model_names()) - set(LEFT_OUT) | fitted
    assert set(every_model()) == set(model_names()) - set(LEFT_OUT) | fitted
    for run in runs:  # no learning rate to search for a reservoir: one run per seed
        assert run.config["model"] not in fitted or run.config["lr"] == 1e-4
    paper_tasks = {r.config["task"] for r in runs}
    assert paper_tasks <= set(every_task()) and "reversal" in paper_tasks
    assert {r.config["lr"] for r in runs} == {1e-4, 3e-4, 5e-4}
    assert {r.config["seed"] for r in runs} == set(range(10))


@pytest.mark.parametrize("profile", ["quick", "paper"])
def test_every_task_of_a_profile_draws_its_longest_test_lengths(profile: str) -> None:
    """The range evaluation reaches each run's test bound: a task whose sampler cannot
    draw that far (the RSM grammars beyond 100 symbols) has its bound cut there."""
    bounds = {(r.config["task"], r.config["test_max"]) for r in Matrix().runs(profile)}
    for task, test_max in sorted(bounds):
        made = make_task(task, **protocol(task).options)
        batch = made.sample_batch(np.random.default_rng(0), 8, test_max - 1, test_max)
        assert batch.inputs.shape[0] == 8, task


def test_the_rsm_languages_are_context_free_and_their_test_range_stops_at_100() -> None:
    for name in ("dyck1", "dyck2", "dyck3", "anbn", "palindrome", "json"):
        assert protocol(f"rsm_{name}").level == "context-free"
        assert protocol(f"rsm_{name}").longest == 100


class _Majority(Task):
    """A user's task: say whether a string of bits has more ones than zeros."""

    input_kind = "tokens"
    output_kind = "classes"
    train_lengths = (1, 40)
    test_lengths = (41, 500)
    chomsky_level = "context-free"
    input_size = 2
    output_size = 2

    def _sample(self, rng: np.random.Generator, batch_size: int, low: int, high: int) -> TaskBatch:
        length = int(rng.integers(low, high + 1))
        bits = torch.from_numpy(rng.integers(0, 2, (batch_size, length)))
        targets = torch.full_like(bits, -100)
        targets[:, -1] = (2 * bits.sum(dim=1) > length).long()
        return TaskBatch.of_class_targets(bits, targets)


@pytest.fixture
def majority() -> Iterator[str]:
    register_task("majority", _Majority)
    yield "majority"
    del task_registry._FACTORIES["majority"]


def test_a_registered_task_joins_the_matrix(majority: str) -> None:
    assert majority in task_names()
    runs = [r for r in Matrix().runs("paper") if r.config["task"] == majority]
    assert {r.config["model"] for r in runs} == {m for m in every_model() if reads(m, majority)}
