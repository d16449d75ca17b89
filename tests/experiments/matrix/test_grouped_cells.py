"""Cells trained together as one batched model give what each gives alone."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from memrnn.experiments.base import RunOutput
from memrnn.experiments.matrix.config import MatrixConfig
from memrnn.experiments.matrix.experiment import Matrix
from memrnn.experiments.matrix.run import can_group, make_cell_task, model_options
from memrnn.runner.group import run_group
from memrnn.runner.train import run

CELL = MatrixConfig(
    model="stack_lstm", task="reversal", vocab_size=4, steps=6, batch_size=4, eval_every=2,
    checkpoint_every=0, train_max=4, test_max=9, eval_size=3, hidden_size=8,
)  # fmt: skip


def fit_cells(configs: list[MatrixConfig], checkpoints: list[Path]) -> list[RunOutput]:
    """The cells trained as one group by the runner, each resuming from its checkpoint."""
    return run_group(Matrix(), configs, checkpoints=checkpoints)


def _members(model: str = "stack_lstm", task: str = "reversal") -> list[MatrixConfig]:
    vocab = CELL.vocab_size if task in ("reversal", "copy") else 0
    base = dataclasses.replace(CELL, model=model, task=task, vocab_size=vocab)
    # as in the matrix, a seed at two rates: those two members read one stream of batches
    runs = ((0, 1e-2), (0, 3e-3), (1, 1e-2))
    return [dataclasses.replace(base, seed=s, lr=lr) for s, lr in runs]


def _close(a: dict[str, float], b: dict[str, float]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == pytest.approx(b[name], rel=1e-4, abs=1e-5), name


@pytest.mark.parametrize(
    ("model", "task"),
    [
        ("stack_lstm", "reversal"),
        ("queue_lstm", "copy"),
        ("deque_lstm", "rsm_dyck2"),
        ("stack_rnn", "reversal"),
        ("fast_weights", "copy"),
        ("transformer", "rsm_dyck2"),
        ("irnn", "rsm_dyck2"),
        ("alstm", "reversal"),
        ("lstm", "copy"),
        ("gru", "rsm_dyck2"),
    ],
)
def test_each_member_ends_where_it_would_alone(model: str, task: str, tmp_path: Path) -> None:
    configs = _members(model, task)
    together = fit_cells(configs, [tmp_path / f"{k}.pt" for k in range(len(configs))])
    for config, output in zip(configs, together, strict=True):
        alone = run(Matrix(), config)
        _close(output.metrics, alone.metrics)
        assert [(s, n) for s, n, _ in output.history] == [(s, n) for s, n, _ in alone.history]
        for (_, name, v), (_, _, w) in zip(output.history, alone.history, strict=True):
            assert v == pytest.approx(w, rel=1e-4, abs=1e-5), name
        assert output.artifacts["trained_with"] == 3
        assert output.artifacts["lengths"] == alone.artifacts["lengths"]


def test_a_group_resumes_from_its_members_checkpoints(tmp_path: Path) -> None:
    configs = [dataclasses.replace(c, checkpoint_every=2) for c in _members()]
    whole = fit_cells(configs, [tmp_path / f"{k}.pt" for k in range(3)])
    short = [dataclasses.replace(c, steps=2) for c in configs]
    fresh = [tmp_path / f"r{k}.pt" for k in range(3)]
    fit_cells(short, fresh)
    resumed = fit_cells(configs, fresh)
    for a, b in zip(whole, resumed, strict=True):
        _close(a.metrics, b.metrics)


def test_the_matrix_groups_cells_that_differ_in_seed_and_rate_of_a_model_that_stacks() -> None:
    matrix = Matrix()
    keys = {matrix.group_key(c) for c in _members()}
    assert len(keys) == 1 and None not in keys
    assert matrix.group_key(dataclasses.replace(CELL, hidden_size=16)) not in keys
    deep = matrix.group_key(dataclasses.replace(CELL, model="deep_lstm"))
    assert deep is not None and deep not in keys
    assert matrix.group_key(dataclasses.replace(CELL, model="rsm", task="rsm_dyck2")) is None
    assert can_group("deque_lstm", "copy") and can_group("deep_lstm", "copy")
    assert not can_group("rsm", "rsm_dyck2") and not can_group("tape_rnn", "parity_check")


def test_cells_whose_stacks_differ_in_depth_are_not_grouped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Stack-RNN's depth follows the longest test sequence: on parity checks of up to 9
    symbols, 11 rows for every seed (the sequence of 9 and its end), so its seeds group;
    cells whose models are built with other options do not."""
    from memrnn.experiments.matrix import experiment

    matrix = Matrix()
    configs = [
        dataclasses.replace(c, seed=k) for k, c in enumerate(_members("stack_rnn", "parity_check"))
    ]
    depths = [model_options(c, make_cell_task(c))["stack_depth"] for c in configs]
    task = make_cell_task(configs[0])
    longest = task.sample_batch(np.random.default_rng(0), 4, 9, 9).mask.shape[1]
    assert depths == [longest + 1] * 3
    keys = [matrix.group_key(c) for c in configs]
    assert None not in keys and len(set(keys)) == 1
    monkeypatch.setattr(experiment, "model_options", lambda c, t: {"stack_depth": 10 + c.seed})
    first, second, _ = (matrix.group_key(c) for c in configs)
    assert first != second
