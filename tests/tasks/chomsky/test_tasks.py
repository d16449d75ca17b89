"""Every task of :mod:`memrnn.tasks.chomsky` (Delétang et al. 2023): its name, group and
lengths; its batches at every training length and at test lengths up to 500 (the string,
then the answer steps of the authors' output length, scored as they score); seeded
determinism; scores of right and wrong answers; and an LSTM that trains on it."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
import torch

from memrnn.models import build_model_for
from memrnn.tasks import IGNORE_INDEX, make_task, task_names
from memrnn.tasks.chomsky import ChomskyTask

# name -> (group, the answer's steps for a string of L symbols: the authors' output_length)
TASKS: dict[str, tuple[str, Callable[[int], int]]] = {
    "even_pairs": ("regular", lambda n: 1),
    "modular_arithmetic": ("regular", lambda n: 1),
    "parity_check": ("regular", lambda n: 1),
    "cycle_navigation": ("regular", lambda n: 1),
    "stack_manipulation": ("context-free", lambda n: n + 1),
    "reverse_string": ("context-free", lambda n: n),
    "modular_arithmetic_brackets": ("context-free", lambda n: 1),
    "solve_equation": ("context-free", lambda n: 1),
    "duplicate_string": ("context-sensitive", lambda n: 2 * n),
    "missing_duplicate": ("context-sensitive", lambda n: 1),
    "odds_first": ("context-sensitive", lambda n: n),
    "binary_addition": ("context-sensitive", lambda n: n + 1),
    "binary_multiplication": ("context-sensitive", lambda n: n),
    "compute_sqrt": ("context-sensitive", lambda n: math.ceil(n / 2)),
    "bucket_sort": ("context-sensitive", lambda n: n),
}
# Answers scored up to their termination token, as the authors' accuracy_mask does.
TERMINATED = {"stack_manipulation", "binary_addition", "binary_multiplication"}
LENGTHS = [*range(1, 61), 97, 256, 499, 500]


def _task(name: str) -> ChomskyTask:
    task = make_task(name)
    assert isinstance(task, ChomskyTask)
    return task


def test_the_fifteen_tasks_are_registered_in_their_groups() -> None:
    chomsky = {n for n in task_names() if isinstance(make_task(n), ChomskyTask)}
    assert chomsky == set(TASKS)
    for name, (level, _) in TASKS.items():
        task = _task(name)
        assert type(task).chomsky_level == level, name
        assert task.train_lengths == (1, 40) and task.test_lengths == (41, 500)
        assert task.input_kind == "tokens" and task.output_kind == "classes"
        assert task.input_size == task.alphabet_size + 1 == task.blank + 1


@pytest.mark.parametrize("name", TASKS)
def test_every_length_gives_the_layout(name: str) -> None:
    task = _task(name)
    answer_steps = TASKS[name][1]
    rng = np.random.default_rng(11)
    for length in LENGTHS:
        batch = task.sample_batch(rng, 8 if length <= 60 else 3, length, length)
        # the authors' rule for modular arithmetic: an even length is one less
        n = length - 1 if name == "modular_arithmetic" and length % 2 == 0 else length
        steps = n + answer_steps(n)
        assert batch.inputs.shape == batch.targets.shape == batch.mask.shape
        assert batch.inputs.shape[1] == steps, length
        assert batch.inputs.dtype == batch.targets.dtype == torch.int64
        string, answer = batch.inputs[:, :n], batch.inputs[:, n:]
        assert 0 <= int(string.min()) and int(string.max()) < task.alphabet_size
        assert bool((answer == task.blank).all())
        assert not batch.mask[:, :n].any() and bool(batch.mask[:, n].all())
        # the scored steps: the whole answer, or its prefix up to the termination token
        scored = batch.mask[:, n:]
        if name in TERMINATED:
            count = scored.sum(dim=1, keepdim=True)
            assert torch.equal(scored, torch.arange(steps - n) < count)  # a prefix
            ends = batch.targets[:, n:] == 2
            assert torch.equal(ends & scored, torch.arange(steps - n) == count - 1)  # one END, last
        else:
            assert bool(scored.all())
        targets = batch.targets[batch.mask]
        assert 0 <= int(targets.min()) and int(targets.max()) < task.output_size
        assert bool((batch.targets[~batch.mask] == IGNORE_INDEX).all())


@pytest.mark.parametrize("name", TASKS)
def test_the_same_generator_state_gives_the_same_batch(name: str) -> None:
    task = _task(name)
    for low, high in (task.train_lengths, task.test_lengths, (9, 9)):
        a, b = (task.sample_batch(np.random.default_rng(3), 5, low, high) for _ in range(2))
        for field in ("inputs", "targets", "mask"):
            assert torch.equal(getattr(a, field), getattr(b, field))
        c = task.sample_batch(np.random.default_rng(4), 5, low, high)
        assert a.inputs.shape != c.inputs.shape or not torch.equal(a.inputs, c.inputs)


@pytest.mark.parametrize("name", TASKS)
def test_right_answers_score_one_and_a_wrong_one_less(name: str) -> None:
    task = _task(name)
    batch = task.sample_batch(np.random.default_rng(6), 10, 2, 40)
    right = 10.0 * torch.nn.functional.one_hot(batch.targets.clamp(min=0), task.output_size)
    assert task.score(right.float(), batch) == {"accuracy": 1.0, "token_accuracy": 1.0}
    wrong = right.float()
    step = int(batch.mask[3].nonzero()[-1])
    wrong[3, step] = wrong[3, step].roll(1)
    scores = task.score(wrong, batch)
    assert scores["accuracy"] == 0.9
    assert scores["token_accuracy"] == pytest.approx(1 - 1 / int(batch.mask.sum()))


@pytest.mark.parametrize("name", TASKS)
def test_an_lstm_trains_a_step(name: str) -> None:
    task = _task(name)
    torch.manual_seed(0)
    model = build_model_for("lstm", task, hidden_size=8)
    batch = task.sample_batch(np.random.default_rng(0), 4, 1, 8)
    outputs = model(batch.inputs)
    assert outputs.shape == (*batch.mask.shape, task.output_size)
    loss = task.loss(outputs, batch)
    loss.backward()
    assert bool(torch.isfinite(loss))
    assert all(
        p.grad is not None and bool(torch.isfinite(p.grad).all()) for p in model.parameters()
    )
