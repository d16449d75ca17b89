"""The LSTM language models of Hewitt et al. (2020), section 8 and Appendix H, trained by
Appendix H.3's recipe as the authors' code (dyckkm-learning) carries it out.

Adam from lr 0.01, batches of 10 strings in a new random order every epoch, the dev loss
after every epoch (the mean over dev batches of 10 of each batch's loss per token), the
rate halved when that loss does not fall by a relative 1e-4 (Adam's moments kept: the
code lowers the rate in place, where the text says Adam is restarted), the model kept when
the loss falls by more than 1e-4, and training stopped three epochs after the last kept
model. The seed sets the initialisation and the batch order; the data are the cell's
(``memrnn.experiments.hewitt2020.data``). The kept model is scored by bracket closing
(Appendix H.4) on the dev set and on the longer test set.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from memrnn.experiments.hewitt2020.config import Hewitt2020Config
from memrnn.experiments.hewitt2020.data import lm_splits
from memrnn.experiments.hewitt2020.paper import lstm_units
from memrnn.languages.dyck import DyckSplits
from memrnn.models.lstm_lm import LSTMLanguageModel
from memrnn.tasks.dyck_lm import batch_mean_loss, batches, bracket_closing, loss, perplexity
from memrnn.training import LoopSettings, train_loop
from memrnn.training.loop import History
from memrnn.training.optimizers import make_optimizer
from memrnn.training.streams import data_rng, eval_rng

# The dev loss must fall by more than this to keep a model (absolute), and by this
# fraction to keep the rate (relative, PyTorch's ReduceLROnPlateau default), as in the
# authors' code.
KEEP_MARGIN = 1e-4
RATE_MARGIN = 1e-4


class _LanguageModelSteps:
    """The LSTM language model as the training loop drives it: one batch of the epoch's
    shuffled order per step, the dev loss per token (mean over batches) after each epoch."""

    def __init__(
        self,
        model: LSTMLanguageModel,
        optimizer: torch.optim.Optimizer,
        splits: DyckSplits,
        size: int,
    ) -> None:
        self.model = model
        self.optimizer = optimizer
        self.train, self.dev, self.size = list(splits.train), list(splits.dev), size
        self.per_epoch = math.ceil(len(self.train) / size)
        self._epoch: Iterator[Tensor] = iter(())
        self._left = 0

    def training_batch(self, rng: np.random.Generator) -> Tensor:
        if self._left == 0:  # a new epoch: a new order
            self._epoch, self._left = batches(self.train, self.size, rng), self.per_epoch
        self._left -= 1
        return next(self._epoch)

    def loss(self, batch: Tensor) -> Tensor:
        return loss(self.model, batch)

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        return {
            "dev_loss": batch_mean_loss(self.model, self.dev, self.size),
            "lr": float(self.optimizer.param_groups[0]["lr"]),
        }


def train_language_model(
    config: Hewitt2020Config,
    data: Path | None,
    checkpoint: Path | None = None,
    resume: bool = False,
) -> tuple[dict[str, float], dict[str, Any], History]:
    """Appendix H.3's recipe, as the authors' code runs it: Adam, the learning rate halved
    whenever the dev loss stops falling, the weights of the best dev loss kept, a stop
    ``patience`` epochs after them. Metrics and artifacts of the kept model, and the
    loop's history (one evaluation per epoch). ``data``: the folder the splits are kept
    in. With ``checkpoint``, a checkpoint at the end of every epoch, continued from when
    ``resume`` is set."""
    splits = lm_splits(config, data)
    model = _initial_model(config)
    optimizer = make_optimizer("adam", model.parameters(), config.lr, 0.0)
    steps = _LanguageModelSteps(model, optimizer, splits, config.batch_size)
    epoch = steps.per_epoch
    result = train_loop(
        steps,
        optimizer,
        _loop_settings(config, epoch),
        data_rng=data_rng(config.seed),
        eval_rng=eval_rng(config.seed),
        schedule=torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, mode="min", factor=0.5, patience=0, threshold=RATE_MARGIN
        ),
        checkpoint=checkpoint,
        resume=resume,
    )
    evaluations = _by_step(result.history)
    history = [(step // epoch, v["dev_loss"], v["lr"]) for step, v in evaluations.items()]
    test = list(splits.test)
    closing, test_curve = _bracket_closing(model, steps.dev, test, config.k)
    metrics = {
        **closing,
        "dev_loss": evaluations[result.best_step]["dev_loss"],
        "test_perplexity": perplexity(model, test),
        "epochs": float(len(history)),
        "best_epoch": float(result.best_step // epoch),
        "units": float(lstm_units(config.k, config.m)),
    }
    artifacts = {"history": history, "test_curve": test_curve, "train_strings": len(steps.train)}
    return metrics, artifacts, result.history


def _initial_model(config: Hewitt2020Config) -> LSTMLanguageModel:
    """The LSTM of Theorem 5's size for Dyck-(k,m), initialised from the run's seed
    without touching the global random state."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        return LSTMLanguageModel(
            2 * config.k + 1, 2 * config.k + 10, lstm_units(config.k, config.m)
        )


def _loop_settings(config: Hewitt2020Config, epoch: int) -> LoopSettings:
    """An evaluation and a checkpoint every epoch of ``epoch`` steps, the best dev loss
    kept, a stop ``patience`` epochs after it."""
    return LoopSettings(
        steps=config.max_epochs * epoch,
        eval_every=epoch,
        checkpoint_every=epoch,
        patience=config.patience,
        monitor="dev_loss",
        margin=KEEP_MARGIN,
        keep_best=True,
    )


def _by_step(history: History) -> dict[int, dict[str, float]]:
    """The loop's evaluations, by step in order: metric name -> value."""
    by_step: dict[int, dict[str, float]] = {}
    for step, name, value in history:
        by_step.setdefault(step, {})[name] = value
    return dict(sorted(by_step.items()))


def _bracket_closing(
    model: LSTMLanguageModel, dev: Sequence[np.ndarray], test: Sequence[np.ndarray], k: int
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Appendix H.4's mean_l p_l on dev and test, and on test at every prefix with an
    open bracket (the positions the authors' code scores); and p_l by distance on test."""
    dev_scores = bracket_closing(model, dev, k)
    test_scores = bracket_closing(model, test, k)
    test_prefixes = bracket_closing(model, test, k, every_open_prefix=True)
    distances, p = test_scores.curve()
    means = {
        "dev_closing": dev_scores.mean,
        "test_closing": test_scores.mean,
        "test_closing_prefixes": test_prefixes.mean,
    }
    return means, {"distance": distances.tolist(), "p": p.tolist()}
