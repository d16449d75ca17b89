"""One run: a stack RNN controller learns to reverse sequences, scored on how well it
reverses the training lengths and a longer one, and on how it uses its stack."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from memrnn.experiments.trask2016.autoencoder import AutoencodingStackRNN, autoencoder_loss
from memrnn.experiments.trask2016.config import Trask2016Config
from memrnn.experiments.trask2016.gates import GATE_COLUMNS, stack_use
from memrnn.models.controller import MemoryRNN
from memrnn.tasks.reversal import ReversalBatch, ReversalTask


def initial_biases(config: Trask2016Config) -> tuple[float, float]:
    """The (push, pop) gate biases a run starts from: the configured constants, or with a
    ``bias_range`` each drawn from U(low, low + bias_range) by torch's generator."""
    if config.bias_range == 0:
        return config.push_bias, config.pop_bias
    push, pop = (config.bias_range * torch.rand(2, dtype=torch.float64)).tolist()
    return config.push_bias + push, config.pop_bias + pop


class ReversalRun:
    """One run: a stack RNN, the reversal task, and how to score both."""

    def __init__(self, config: Trask2016Config, device: torch.device) -> None:
        self.config = config
        self.device = device
        self.task = ReversalTask(config.vocab_size)
        push_bias, pop_bias = initial_biases(config)
        model = AutoencodingStackRNN if config.autoencoder else MemoryRNN
        self.model = model(
            self.task.input_size,
            self.task.output_size,
            config.hidden_size,
            config.memory_width,
            memory="stack",
            cell=config.cell,
            output_hidden=config.output_hidden,
            push_bias=push_bias,
            pop_bias=pop_bias,
        ).to(device)

    def _batch(self, rng: np.random.Generator, size: int, length: int) -> ReversalBatch:
        return self.task.sample(rng, size, length).to(self.device)

    def training_batch(self, rng: np.random.Generator) -> ReversalBatch:
        length = int(rng.integers(self.config.min_length, self.config.max_length + 1))
        return self._batch(rng, self.config.batch_size, length)

    @property
    def network(self) -> MemoryRNN:
        """The controller whose logits ``loss_of`` scores."""
        return self.model

    def inputs(self, batch: ReversalBatch) -> Tensor:
        return batch.inputs

    def loss_of(self, outputs: Tensor, batch: ReversalBatch) -> Tensor:
        """Cross-entropy of the reversal, given the logits."""
        return F.cross_entropy(outputs.flatten(0, 1), batch.targets.flatten())

    def loss(self, batch: ReversalBatch) -> Tensor:
        """Cross-entropy of the reversal, plus ``autoencoder_loss`` with the side task."""
        if isinstance(self.model, AutoencodingStackRNN):
            logits, from_h, from_o = self.model.with_reconstructions(batch.inputs)
            side = autoencoder_loss(batch.inputs, from_h, from_o)
            return self.loss_of(logits, batch) + side
        return self.loss_of(self.model(batch.inputs), batch)

    def _score(self, rng: np.random.Generator, length: int) -> dict[str, float]:
        batch = self._batch(rng, self.config.eval_size, length)
        out = self.model.trace(batch.inputs)
        token, sequence = self.task.accuracy(out.outputs, batch)
        loss = F.cross_entropy(out.outputs.flatten(0, 1), batch.targets.flatten())
        # The gates of the last step act on a stack that is never read again.
        push, pop = out.push[:, : 2 * length - 1], out.pop[:, : 2 * length - 1]
        return {
            "loss": float(loss),
            "token_acc": token,
            "seq_acc": sequence,
            "push_encode": float(push[:, :length].mean()),
            "pop_encode": float(pop[:, :length].mean()),
            "push_decode": float(push[:, length:].mean()) if length > 1 else float("nan"),
            "pop_decode": float(pop[:, length:].mean()) if length > 1 else float("nan"),
        }

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        """Every training length equally, and the long length. ``loss`` is the reversal's
        cross-entropy alone, without the side task, so that variants compare."""
        lengths = range(self.config.min_length, self.config.max_length + 1)
        per_length = [self._score(rng, n) for n in lengths]
        metrics = {key: float(np.nanmean([m[key] for m in per_length])) for key in per_length[0]}
        long = self._score(rng, self.config.long_length)
        return {
            "loss": metrics["loss"],
            "train_token_acc": metrics["token_acc"],
            "train_seq_acc": metrics["seq_acc"],
            "long_token_acc": long["token_acc"],
            "long_seq_acc": long["seq_acc"],
            **{key: metrics[key] for key in GATE_COLUMNS[:4]},
            "stack_use": stack_use(*(metrics[key] for key in GATE_COLUMNS[:4])),
        }

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        """Gate traces of one sequence, and sequence accuracy at lengths 1 .. 2 x max."""
        lengths = list(range(1, 2 * self.config.max_length + 1))
        curve = [self._score(rng, n)["seq_acc"] for n in lengths]
        batch = self._batch(rng, 1, self.config.max_length)
        out = self.model.trace(batch.inputs)
        return {
            "lengths": lengths,
            "seq_acc_by_length": curve,
            "trace_push": out.push[0].tolist(),
            "trace_pop": out.pop[0].tolist(),
            "trace_sequence": batch.sequences[0].tolist(),
            "trace_prediction": out.outputs[0].argmax(-1).tolist(),
        }
