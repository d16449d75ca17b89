"""One cell: its scores against a literal count, range evaluation, determinism."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from memrnn.experiments.base import RunOutput
from memrnn.experiments.matrix.config import RESERVOIR_MODELS, MatrixConfig
from memrnn.experiments.matrix.experiment import Matrix
from memrnn.experiments.matrix.protocol import every_model, reads
from memrnn.experiments.matrix.reservoir import as_outputs
from memrnn.experiments.matrix.run import make_cell_task, model_options, shortest
from memrnn.experiments.matrix.scoring import length_bins, score_sequences, scores_beyond
from memrnn.models.registry import build_model_for
from memrnn.runner.train import run
from memrnn.tasks import make_task


def fit_cell(config: MatrixConfig, **options: object) -> RunOutput:
    """The cell carried out by the runner, as ``memrnn reproduce`` carries it out."""
    return run(Matrix(), config, **options)  # type: ignore[arg-type]


CELL = MatrixConfig(
    model="lstm", task="reversal", vocab_size=4, steps=4, batch_size=4, eval_every=2,
    checkpoint_every=0, train_max=4, test_max=9, eval_size=3, hidden_size=8,
)  # fmt: skip


def test_scores_count_right_tokens_per_sequence() -> None:
    task = make_task("reversal", vocab_size=4)
    batch = task.sample_batch(np.random.default_rng(0), 5, 3, 6)
    targets = batch.targets.clamp(min=0)
    outputs = torch.nn.functional.one_hot(targets, task.output_size).double() * 10
    outputs[0, batch.mask[0].nonzero()[0, 0]] = torch.roll(
        outputs[0, batch.mask[0].nonzero()[0, 0]], 1
    )
    scores = score_sequences(task, outputs, batch)
    for b in range(5):  # literally: the fraction of scored steps whose arg-max is the target
        steps = batch.mask[b].nonzero().flatten().tolist()
        right = [int(outputs[b, t].argmax()) == int(batch.targets[b, t]) for t in steps]
        assert scores.tokens[b] == pytest.approx(sum(right) / len(right))
        assert scores.sequences[b] == float(all(right))
    assert scores.sequences[0] == 0.0 and scores.tokens[0] < 1.0
    # Delétang et al.'s accuracy pools the batch's tokens: a longer answer weighs more
    right = sum(int(outputs[b, t].argmax()) == int(batch.targets[b, t])
                for b in range(5) for t in batch.mask[b].nonzero().flatten().tolist())  # fmt: skip
    assert scores.pooled() == pytest.approx(right / int(batch.mask.sum()))


def test_length_bins_cover_every_length_in_pairs() -> None:
    assert length_bins(1, 6) == [(1, 2), (3, 4), (5, 6)]
    assert length_bins(2, 7) == [(2, 3), (4, 5), (6, 7)]
    assert length_bins(3, 3) == [(3, 3)]
    assert length_bins(1, 5) == [(1, 2), (3, 4), (4, 5)]  # no bin of one length alone


def test_the_test_score_averages_only_the_lengths_beyond_n() -> None:
    curves = {"lengths": [1, 3, 5, 7], "accuracy": [1.0, 1.0, 0.5, 0.0],
              "token_accuracy": [1.0, 0.9, 0.6, 0.2]}  # fmt: skip
    assert scores_beyond(curves, 4) == {"test_accuracy": 0.25, "test_token_accuracy": 0.4}
    pooled = {**curves, "pooled_token_accuracy": [1.0, 1.0, 0.7, 0.3]}
    assert scores_beyond(pooled, 4)["test_pooled_token_accuracy"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="train_max: no test length above 7"):
        scores_beyond(curves, 7)


def test_cells_train_from_the_shortest_length_the_task_has() -> None:
    """From 1 as Delétang et al. do, not from the 8 Grefenstette et al. train from; a
    grammar's shortest sentence or bigram flip's even lengths where the task has no 1."""
    assert [shortest(make_task(t, vocab_size=8)) for t in ("reversal", "copy")] == [1, 1]
    assert shortest(make_task("bigram_flip", vocab_size=8)) == 2
    assert shortest(make_task("svo_sov")) == make_task("svo_sov").shortest_source > 1
    assert shortest(make_task("parity_check")) == 1


def test_a_cell_trains_scores_every_length_and_repeats_itself() -> None:
    first = fit_cell(CELL)
    again = fit_cell(CELL)
    assert first.metrics == again.metrics and first.artifacts == again.artifacts
    assert first.artifacts["lengths"] == [low for low, _ in length_bins(1, 9)]
    assert first.steps_done == 4
    assert {"train_token_accuracy", "test_token_accuracy", "test_accuracy", "loss"} <= set(
        first.metrics
    )
    other = fit_cell(dataclasses.replace(CELL, seed=1))
    assert other.metrics != first.metrics


def test_a_resumed_cell_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    whole = fit_cell(CELL)
    checkpoint = tmp_path / "cell.pt"
    half = dataclasses.replace(CELL, checkpoint_every=2)
    fit_cell(dataclasses.replace(half, steps=2), checkpoint=checkpoint)
    resumed = fit_cell(half, checkpoint=checkpoint, resume=True)
    assert resumed.metrics == whole.metrics and resumed.artifacts == whole.artifacts


def test_the_superposition_stack_is_deep_enough_for_the_longest_test() -> None:
    config = dataclasses.replace(CELL, model="stack_rnn", test_max=15)
    output = fit_cell(config)
    assert np.isfinite(output.metrics["test_token_accuracy"])


def test_on_their_tasks_the_transformer_is_their_non_causal_encoder() -> None:
    ours = dataclasses.replace(CELL, model="transformer")
    theirs = dataclasses.replace(ours, task="reverse_string", vocab_size=0)
    assert "causal" not in model_options(ours, make_cell_task(ours))
    assert model_options(theirs, make_cell_task(theirs))["causal"] is False
    assert np.isfinite(fit_cell(theirs).metrics["test_token_accuracy"])


def test_the_tape_holds_the_longest_test_input_without_wrapping() -> None:
    config = dataclasses.replace(CELL, model="tape_rnn", task="duplicate_string", test_max=15)
    task = make_cell_task(config)
    options = model_options(config, task)
    model = build_model_for("tape_rnn", task, **options)
    batch = task.sample_batch(np.random.default_rng(0), 64, 15, 15)
    x = torch.nn.functional.one_hot(batch.inputs, model.input_size).float()
    assert model.input_length(x).max() == 15 < options["tape_size"]


@pytest.mark.parametrize("model", [m for m in every_model() if m not in RESERVOIR_MODELS])
def test_every_model_of_the_matrix_builds_and_trains_a_step(model: str) -> None:
    assert reads(model, "reversal")  # every model of memrnn reads tokens
    config = dataclasses.replace(CELL, model=model, steps=1, eval_every=1)
    output = fit_cell(config)
    assert np.isfinite(output.metrics["test_token_accuracy"])


def test_value_tasks_are_scored_by_whole_sequences_and_token_tasks_by_tokens() -> None:
    tokens = fit_cell(CELL)
    assert tokens.metrics["test_score"] == tokens.metrics["test_token_accuracy"]
    assert tokens.artifacts["scored_by"] == "tokens"
    values = fit_cell(dataclasses.replace(CELL, task="rsm_dyck2", vocab_size=0))
    assert values.metrics["test_score"] == values.metrics["test_accuracy"]
    assert values.artifacts["scored_by"] == "sequences"
    assert values.metrics["train_score"] == values.metrics["train_accuracy"]


RESERVOIR_CELL = dataclasses.replace(CELL, task="rsm_dyck2", vocab_size=0, test_max=8)


@pytest.mark.parametrize("model", RESERVOIR_MODELS)
def test_a_reservoir_cell_fits_scores_every_length_and_repeats_itself(model: str) -> None:
    config = dataclasses.replace(RESERVOIR_CELL, model=model)
    first = fit_cell(config)
    again = fit_cell(config)
    assert first.metrics == again.metrics and first.artifacts == again.artifacts
    assert first.artifacts["lengths"] == [low for low, _ in length_bins(1, 8)]
    assert first.artifacts["scored_by"] == "sequences" and first.steps_done == 0
    assert first.metrics["test_score"] == first.metrics["test_accuracy"]
    assert 0.0 <= first.metrics["train_score"] <= 1.0
    assert first.metrics["train_score"] > 0.5  # fitted: most short words decided right


def test_reservoir_models_meet_only_tasks_with_stack_actions() -> None:
    assert reads("rsm", "rsm_dyck2") and reads("esn", "rsm_latch")
    assert not reads("rsm", "reverse_string") and not reads("esn", "parity_check")
    with pytest.raises(ValueError, match="rsm needs a task with stack actions"):
        fit_cell(dataclasses.replace(CELL, model="rsm"))


def test_reservoir_predictions_are_scored_as_the_task_scores_outputs() -> None:
    """A reservoir's values become logits under binary cross entropy, so that the task's
    sigmoid gives the values back."""
    task = make_task("rsm_dyck2")
    batch = task.sample_batch(np.random.default_rng(0), 3, 2, 6)
    values = [batch.targets[b].double().numpy() for b in range(3)]
    outputs = as_outputs(task, values, batch)
    assert torch.allclose(torch.sigmoid(outputs), batch.targets.double(), atol=1e-5)
    assert score_sequences(task, outputs, batch).sequences.tolist() == [1.0, 1.0, 1.0]


def test_a_test_bound_not_above_n_names_both_fields() -> None:
    """A change to ``train_max`` alone can break the pair: the error says so by name."""
    with pytest.raises(ValueError, match=r"test_max: expected more than train_max \(10\), got 8"):
        dataclasses.replace(CELL, train_max=10, test_max=8).validate()
    with pytest.raises(ValueError, match="test_max: expected an int"):
        dataclasses.replace(CELL, test_max="40").validate()  # type: ignore[arg-type]
