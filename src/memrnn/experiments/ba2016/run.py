"""One run: a model with the paper's readout learns to name the digit stored with the
query key, scored by its error on the whole validation and test splits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from memrnn.experiments.ba2016.config import Ba2016Config
from memrnn.io import load_or_make
from memrnn.models import ReadoutRNN, build_model
from memrnn.tasks.retrieval import (
    CLASSES,
    VOCAB_SIZE,
    RetrievalSplits,
    make_splits,
    splits_file_name,
    splits_from_arrays,
    splits_meta,
    splits_to_arrays,
)
from memrnn.training.compiled import compiled_loss


def load_splits(config: Ba2016Config, data: Path | None) -> RetrievalSplits:
    """The run's splits: read from the folder ``data`` (written there the first time, so
    that every run of a profile sees the same examples), or made in memory when None."""
    sizes = (config.train_size, config.validation_size, config.test_size)
    seed, pairs = config.data_seed, config.pairs
    if data is None:
        return make_splits(seed, pairs, sizes)
    return load_or_make(
        data / "retrieval" / splits_file_name(seed, pairs, sizes),
        splits_meta(seed, pairs, sizes),
        lambda: make_splits(seed, pairs, sizes),
        "retrieval splits",
        to_arrays=splits_to_arrays,
        from_arrays=lambda arrays: splits_from_arrays(arrays, seed, pairs, sizes),
    )


class RetrievalRun:
    """One run: a model with the paper's readout and the splits it trains and is scored on,
    kept under ``data`` (made in memory when it is None)."""

    def __init__(self, config: Ba2016Config, device: torch.device, data: Path | None) -> None:
        self.config, self.device = config, device
        splits = load_splits(config, data)
        self.train, self.validation, self.test = (
            tuple(torch.from_numpy(a).to(device) for a in split)
            for split in (splits.train, splits.validation, splits.test)
        )
        model = build_model(
            config.model, VOCAB_SIZE, CLASSES, hidden_size=config.hidden, readout=config.readout,
            **config.model_options(),
        )  # fmt: skip
        assert isinstance(model, ReadoutRNN)
        self.model = model.to(device)
        self._loss = compiled_loss(self._eager_loss) if config.compiled else self._eager_loss

    def training_batch(self, rng: np.random.Generator) -> tuple[Tensor, Tensor]:
        rows = torch.from_numpy(rng.integers(0, len(self.train[0]), self.config.batch_size))
        rows = rows.to(self.device)
        return self.train[0][rows], self.train[1][rows]

    def loss(self, batch: tuple[Tensor, Tensor]) -> Tensor:
        return self._loss(*batch)

    def _eager_loss(self, inputs: Tensor, targets: Tensor) -> Tensor:
        return F.cross_entropy(self.model.last_step(inputs), targets)

    def _score(self, split: tuple[Tensor, ...]) -> tuple[float, float]:
        """Error rate and mean cross-entropy over a whole split, in chunks."""
        wrong, total_loss = 0, 0.0
        for lo in range(0, len(split[0]), 5000):
            inputs, targets = split[0][lo : lo + 5000], split[1][lo : lo + 5000]
            scores = self.model.last_step(inputs)
            wrong += int((scores.argmax(dim=1) != targets).sum())
            total_loss += float(F.cross_entropy(scores, targets, reduction="sum"))
        return wrong / len(split[0]), total_loss / len(split[0])

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        val_error, val_loss = self._score(self.validation)
        test_error, _ = self._score(self.test)
        return {"val_error": val_error, "val_loss": val_loss, "test_error": test_error}

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"parameters": sum(p.numel() for p in self.model.parameters())}
