"""Associative retrieval (Ba et al. 2016, section 4.1) on the Task contract.

A length is the number K of key-value pairs, one per batch, drawn uniformly from the range
before the batch; a sequence is :func:`memrnn.tasks.retrieval.sample`'s 2K + 3 symbol ids,
and only its last step, after the query key, is scored: its target is the digit stored
with the key. The task's metric is the paper's error, the fraction of wrong answers.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from memrnn.tasks.base import IGNORE_INDEX, Task, TaskBatch
from memrnn.tasks.registry import register_task
from memrnn.tasks.retrieval import CLASSES, DEFAULT_PAIRS, LETTERS, VOCAB_SIZE, sample
from memrnn.tasks.scoring import class_hits
from memrnn.validation import check_int


@register_task("associative_retrieval")
class RetrievalTask(Task):
    """Find the digit stored with the query key among K key-value pairs."""

    input_kind = "tokens"
    output_kind = "classes"
    train_lengths = (DEFAULT_PAIRS, DEFAULT_PAIRS)  # the paper's example c9k8j3f1??c
    test_lengths = (DEFAULT_PAIRS, DEFAULT_PAIRS)  # fresh examples of the same length

    def __repr__(self) -> str:
        return "RetrievalTask()"

    @property
    def input_size(self) -> int:
        """37 symbols: a-z, 0-9 and ?."""
        return VOCAB_SIZE

    @property
    def output_size(self) -> int:
        """10 digits."""
        return CLASSES

    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        check_int("max_length", max_length, maximum=len(LETTERS))  # pairs: one key a letter
        pairs = int(rng.integers(min_length, max_length + 1))
        inputs, answers = sample(rng, batch_size, pairs)
        targets = torch.full(inputs.shape, IGNORE_INDEX, dtype=torch.int64)
        targets[:, -1] = torch.from_numpy(answers)
        return TaskBatch.of_class_targets(torch.from_numpy(inputs), targets)

    def _metrics(self, outputs: Tensor, batch: TaskBatch) -> dict[str, float]:
        right = class_hits(outputs, batch.targets, batch.mask)[:, -1]
        return {"error": 1.0 - float(right.to(torch.float64).mean().item())}
