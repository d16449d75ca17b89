"""A reservoir model's cell of the matrix: the echo state network or the reservoir stack
machine of Paassen, Schulz and Hammer (2021), fitted in closed form on a task that gives
stack actions (a ``StackTask``: its teacher is what the stack machine learns from), then
scored at every length up to the test bound like a trained model.

Both take the paper's settings: a Legendre delay network reservoir of 256 neurons, 100
training sequences (section 4), the estimators' default regularisation; the stack
machine's output is an SVM for 0/1 targets and ridge regression otherwise. They have no
learning rate and no training steps; a cell fits once per seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from memrnn.estimators import EchoStateNetwork, ReservoirStackMachine
from memrnn.experiments.base import RunOutput
from memrnn.experiments.matrix.config import RESERVOIR_MODELS, MatrixConfig
from memrnn.experiments.matrix.scoring import length_bins, range_evaluation, score_sequences
from memrnn.tasks import StackTask, Task, TaskBatch
from memrnn.training.streams import artifacts_rng, stream

__all__ = ["RESERVOIR_MODELS", "as_outputs", "fit_reservoir_cell", "reservoir_reads"]

NEURONS = 256
TRAIN_SEQUENCES = 100


def reservoir_reads(task: Task) -> bool:
    """Whether the reservoir models meet ``task``: one that gives stack actions."""
    return isinstance(task, StackTask)


def _sequences(batch: TaskBatch) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each sequence's inputs (T_b, n) and targets (T_b, L), without padding (a stack
    teacher has T_b + 1 steps)."""
    lengths = [len(teacher.actions) - 1 for teacher in batch.teachers]
    inputs, targets = batch.inputs.double().numpy(), batch.targets.double().numpy()
    return (
        [inputs[b, :t] for b, t in enumerate(lengths)],
        [targets[b, :t] for b, t in enumerate(lengths)],
    )


def as_outputs(task: Task, values: list[np.ndarray], batch: TaskBatch) -> Tensor:
    """Predicted values as the outputs the task scores, padded like ``batch``: logits for
    0/1 targets under binary cross entropy (sigmoid(logit(p)) = p), values otherwise."""
    out = torch.zeros(batch.targets.shape, dtype=torch.float64)
    for b, y in enumerate(values):
        out[b, : len(y)] = torch.from_numpy(np.asarray(y, dtype=np.float64))
    if getattr(task, "value_loss", "mse") == "bce":
        out = torch.logit(out.clamp(1e-6, 1 - 1e-6))
    return out


def _fit(config: MatrixConfig, task: StackTask, batch: TaskBatch) -> Callable[[TaskBatch], Tensor]:
    """The fitted model of ``config`` as a function from a batch to its scored outputs."""
    inputs, targets = _sequences(batch)
    binary = bool(((batch.targets == 0) | (batch.targets == 1)).all())
    if config.model == "esn":
        esn = EchoStateNetwork("ldn", NEURONS, random_state=config.seed).fit(inputs, targets)
        return lambda b: as_outputs(task, esn.predict(_sequences(b)[0]), b)
    longest = max(len(a) for t in batch.teachers for a in t.actions)
    rsm = ReservoirStackMachine(
        "ldn",
        NEURONS,
        output="svm" if binary else "ridge",
        max_actions=2 * longest + 2,  # a machine that never stops popping is cut here
        random_state=config.seed,
    ).fit(inputs, list(batch.teachers), nonterminals=task.nonterminals)
    # the machine's T + 1 outputs: for the languages row t is the verdict on the prefix
    # of length t (row 0, the empty prefix, is not scored); for the copy tasks the row
    # after the input is not scored
    first = 0 if getattr(task, "value_loss", "mse") == "mse" else 1

    def predict(b: TaskBatch) -> Tensor:
        rows = rsm.predict(_sequences(b)[0])
        return as_outputs(task, [y[first : first + len(y) - 1] for y in rows], b)

    return predict


def fit_reservoir_cell(config: MatrixConfig, task: StackTask, shortest: int) -> RunOutput:
    """Fit the cell's reservoir model on ``TRAIN_SEQUENCES`` sequences of the training
    lengths, score it on fresh ones (``train_score``, what selection reads) and at every
    length up to ``test_max``."""
    started = time.perf_counter()
    lengths = (shortest, max(shortest, config.train_max))
    batch = task.sample_batch(stream(config.seed, "data"), TRAIN_SEQUENCES, *lengths)
    predict = _fit(config, task, batch)
    fresh = task.sample_batch(stream(config.seed, "eval"), config.eval_size, *lengths)
    scores = score_sequences(task, predict(fresh), fresh)
    sequences, tokens = float(scores.sequences.mean()), float(scores.tokens.mean())
    bins = length_bins(shortest, config.test_max)
    curves = range_evaluation(task, predict, artifacts_rng(config.seed), bins, config.eval_size)
    metrics = {
        "train_accuracy": sequences,
        "train_token_accuracy": tokens,
        "train_score": tokens if task.output_kind == "classes" else sequences,
        "steps": 0.0,
    }
    return RunOutput(metrics, [], dict(curves), 0, time.perf_counter() - started)
