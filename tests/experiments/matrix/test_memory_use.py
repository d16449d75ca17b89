"""Why a memory model's cell falls short: the shares of steps that push and pop, recorded
with each run of a model with gates, and the report's sentence for each cell under 90%."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.experiments.matrix.memory_use import memory_findings, memory_use
from memrnn.models import build_model_for
from memrnn.tasks import make_task
from tests.experiments.matrix.test_report import record


def test_memory_use_counts_the_strong_pushes_and_pops_of_the_scored_sequences() -> None:
    task = make_task("reverse_string")
    torch.manual_seed(0)
    model = build_model_for("stack_rnn", task, stack_depth=30)
    use = memory_use(model, task, np.random.default_rng(0), (5, 6), 8)
    assert use is not None and set(use) == {"push_share", "pop_share"}
    batch = task.sample_batch(np.random.default_rng(0), 8, 5, 6)  # the same draw
    trace = model.trace(batch.inputs)
    steps = batch.mask.flip(1).cumsum(1).flip(1) > 0  # up to each sequence's last score
    assert use["push_share"] == pytest.approx(float((trace.push > 0.5)[steps].double().mean()))
    assert use["pop_share"] == pytest.approx(float((trace.pop > 0.5)[steps].double().mean()))
    assert (
        memory_use(build_model_for("lstm", task), task, np.random.default_rng(0), (5, 6), 8) is None
    )


def _run(model: str, task: str, seed: int, train: float, test: float, push: float, pop: float):  # type: ignore[no-untyped-def]
    run = record(model, task, 1e-3, seed, train, test)
    run.artifacts["memory_use"] = {"push_share": push, "pop_share": pop}
    return run


def test_the_findings_tell_unused_memory_from_memory_that_did_not_extrapolate() -> None:
    runs = [
        _run("stack_rnn", "reverse_string", 0, 0.99, 0.62, 0.45, 0.40),
        _run("stack_rnn", "reverse_string", 1, 0.95, 0.55, 0.0, 0.9),  # not its best
        _run("stack_lstm", "odds_first", 0, 0.97, 0.5, 0.01, 0.0),
        _run("stack_rnn", "odds_first", 0, 0.6, 0.5, 0.3, 0.3),
        _run("stack_rnn", "parity_check", 0, 1.0, 0.97, 0.0, 0.0),  # solved: no sentence
        record("lstm", "reverse_string", 1e-3, 0, 0.9, 0.5),  # no gates: no sentence
    ]
    found = memory_findings(runs)
    assert found == [
        "stack_lstm on odds_first (best run 0.50 on the test lengths, 0.97 on the training "
        "lengths; pushes above 0.5 at 1% of its steps, pops at 0%): fitted the training "
        "lengths without using its memory",
        "stack_rnn on odds_first (best run 0.50 on the test lengths, 0.60 on the training "
        "lengths; pushes above 0.5 at 30% of its steps, pops at 30%): did not fit the "
        "training lengths",
        "stack_rnn on reverse_string (best run 0.62 on the test lengths, 0.99 on the "
        "training lengths; pushes above 0.5 at 45% of its steps, pops at 40%): used its "
        "memory and did not extrapolate",
    ]


def test_a_tapes_use_is_the_share_of_steps_that_move_its_head_and_that_jump() -> None:
    task = make_task("duplicate_string")
    torch.manual_seed(1)
    model = build_model_for("tape_rnn", task, length_token=task.alphabet_size)
    use = memory_use(model, task, np.random.default_rng(0), (4, 5), 8)
    batch = task.sample_batch(np.random.default_rng(0), 8, 4, 5)
    actions = model.moves(batch.inputs)
    assert actions.shape == (*batch.mask.shape, 5)
    torch.testing.assert_close(actions.sum(-1), torch.ones(batch.mask.shape))
    steps = batch.mask.flip(1).cumsum(1).flip(1) > 0
    moving = (actions[..., 1:] > 0.5).any(-1)[steps].double().mean()
    assert use == {
        "move_share": pytest.approx(float(moving)),
        "jump_share": pytest.approx(float((actions[..., 3:] > 0.5).any(-1)[steps].double().mean())),
    }
    run = record("tape_rnn", "duplicate_string", 1e-3, 0, 0.95, 0.5)
    run.artifacts["memory_use"] = {"move_share": 0.02, "jump_share": 0.0}
    assert memory_findings([run]) == [
        "tape_rnn on duplicate_string (best run 0.50 on the test lengths, 0.95 on the "
        "training lengths; moves above 0.5 at 2% of its steps, jumps at 0%): fitted the "
        "training lengths without using its memory"
    ]
