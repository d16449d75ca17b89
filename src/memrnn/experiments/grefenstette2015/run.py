"""What one run builds and does: a Deep LSTM or a Stack-, Queue- or DeQue-LSTM trained by
teacher forcing on one transduction task, scored by greedy decoding, its training lengths
grown by the curriculum."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.experiments.grefenstette2015.config import Grefenstette2015Config
from memrnn.models.transducer import DeepLSTM, MemoryAugmentedLSTM
from memrnn.tasks.base import TaskBatch
from memrnn.tasks.transduction import TransductionBatch, TransductionTask, sample_batch


class _Trained(nn.Module):
    """The model and the curriculum's current longest source, saved with it."""

    bound: Tensor

    def __init__(self, network: MemoryAugmentedLSTM | DeepLSTM, bound: int) -> None:
        super().__init__()
        self.network = network
        self.register_buffer("bound", torch.tensor(bound))


def _network(
    config: Grefenstette2015Config, task: TransductionTask
) -> MemoryAugmentedLSTM | DeepLSTM:
    """The run's untrained Deep LSTM or memory-augmented LSTM."""
    if config.model == "lstm":
        return DeepLSTM(
            task.input_size, task.output_size, hidden_size=config.hidden,
            layers=config.layers, embedding=config.embedding,
        )  # fmt: skip
    return MemoryAugmentedLSTM(
        task.input_size, task.output_size, memory=config.model,
        hidden_size=config.hidden, embedding=config.embedding,
        memory_width=config.memory_width, pop_bias=config.pop_bias,
        push_bias=config.push_bias, bottom_push_bias=config.bottom_push_bias,
    )  # fmt: skip


class TransductionRun:
    """One run: a task, a model and how to train and score it."""

    def __init__(self, config: Grefenstette2015Config, device: torch.device) -> None:
        self.config, self.device = config, device
        vocab = config.vocab_size if config.task in ("copy", "reversal", "bigram_flip") else None
        self.task = TransductionTask(config.task, vocab)
        start = config.curriculum_start or config.max_length
        start = max(start, config.min_length, self.task.shortest_source)
        self.model = _Trained(_network(config, self.task), min(start, config.max_length))
        self.model.to(device)

    def _batch(self, rng: np.random.Generator, size: int, lo: int, hi: int) -> TransductionBatch:
        return sample_batch(self.task, rng, size, lo, hi).to(self.device)

    def training_batch(self, rng: np.random.Generator) -> TransductionBatch:
        bound = int(self.model.bound)
        return self._batch(rng, self.config.batch_size, self.config.min_length, bound)

    @property
    def network(self) -> MemoryAugmentedLSTM | DeepLSTM:
        """The network whose logits ``loss_of`` scores (the model without its curriculum)."""
        return self.model.network

    def inputs(self, batch: TransductionBatch) -> Tensor:
        return batch.inputs

    def loss_of(self, outputs: Tensor, batch: TransductionBatch) -> Tensor:
        """Cross-entropy of the targets, given the logits."""
        return F.cross_entropy(outputs.flatten(0, 1), batch.targets.flatten())

    def loss(self, batch: TransductionBatch) -> Tensor:
        network = self.model.network
        if isinstance(network, MemoryAugmentedLSTM):
            # Gate noise hardens gates the model already uses: on once the curriculum is
            # at the longest training lengths, never while it is still learning the task.
            at_longest = int(self.model.bound) >= self.config.max_length
            network.core.gate_noise = self.config.gate_noise if at_longest else 0.0
        return self.loss_of(network(batch.inputs), batch)

    def score(self, rng: np.random.Generator, lo: int, hi: int) -> tuple[float, float]:
        """Coarse and fine accuracy of greedy decoding on fresh sources of lengths lo-hi.

        Computed from one teacher-forced pass over ``<s> source ||| target``: up to its
        first error, greedy decoding feeds back the gold symbols, so its predictions there
        are the teacher-forced argmaxes, and neither metric looks past the first error.
        One pass over the whole sequence costs a fraction of decoding step by step.
        """
        batch = self._batch(rng, self.config.eval_size, lo, hi)
        logits = self.model.network(batch.inputs)
        scores = self.task.score(logits, TaskBatch.of_class_targets(batch.inputs, batch.targets))
        return scores["coarse"], scores["fine"]

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        """The curriculum's current lengths scored (and the curriculum grown), then, at a
        step that ``score_every`` names and at the last, the training and test lengths."""
        c = self.config
        bound = int(self.model.bound)
        current, _ = self.score(rng, max(c.min_length, bound // 2), bound)
        if current >= c.curriculum_threshold and bound < c.max_length:
            self.model.bound.fill_(min(c.max_length, bound + c.curriculum_increment))
        metrics = {"curriculum": float(bound), "curriculum_coarse": current}
        if c.score_every and step % c.score_every and step < c.steps:
            return metrics
        train_coarse, train_fine = self.score(rng, c.min_length, c.max_length)
        test_coarse, test_fine = self.score(rng, c.test_min_length, c.test_max_length)
        return {
            **metrics,
            "train_coarse": train_coarse,
            "train_fine": train_fine,
            "test_coarse": test_coarse,
            "test_fine": test_fine,
        }

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        """The push, pop and strength traces of one test-length example (memory models)."""
        network = self.model.network
        if not isinstance(network, MemoryAugmentedLSTM):
            return {}
        c = self.config
        # The shortest test length the task has (bigram flipping takes even lengths only).
        hi = min(c.test_min_length + 1, c.test_max_length)
        batch = self._batch(rng, 1, c.test_min_length, hi)
        out = network.trace(batch.inputs, strengths=True)
        assert out.strengths is not None
        return {
            "source_length": int(batch.source_lengths[0]),
            "push": out.push[0].tolist(),
            "pop": out.pop[0].tolist(),
            "strengths": out.strengths[0].tolist(),
        }
