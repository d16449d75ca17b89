"""The LSTM language models of hewitt2020, trained by the authors' recipe."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import torch

from memrnn.experiments.hewitt2020 import (
    KEEP_MARGIN,
    RATE_MARGIN,
    Hewitt2020Config,
    language_model,
    lstm_units,
    train_language_model,
)
from memrnn.training import DamagedCheckpointWarning
from memrnn.training.optimizers import make_optimizer

SMALL = {"k": 2, "m": 3, "train_tokens": 300, "dev_tokens": 200, "test_tokens": 400}


def test_the_recipe_follows_the_authors_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """One Adam for the whole run (the rate is halved in place, its moments kept), the rate
    halved after each epoch whose dev loss does not fall by a relative 1e-4, the model kept
    when it falls by more than 1e-4, and a stop three epochs after the last kept one."""
    made: list[torch.optim.Optimizer] = []

    def counted(*args: Any, **kwargs: Any) -> torch.optim.Optimizer:
        made.append(make_optimizer(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(language_model, "make_optimizer", counted)
    config = Hewitt2020Config(**SMALL, lr=0.5, max_epochs=40)
    metrics, artifacts, _ = train_language_model(config, None)
    assert len(made) == 1 and type(made[0]) is torch.optim.Adam
    history = artifacts["history"]
    assert [epoch for epoch, _, _ in history] == list(range(1, len(history) + 1))
    lr, scheduler_best, best, best_epoch = config.lr, math.inf, math.inf, 0
    halvings = 0
    for epoch, dev_loss, used in history:
        assert used == pytest.approx(lr)
        if dev_loss < scheduler_best * (1 - RATE_MARGIN):
            scheduler_best = dev_loss
        else:
            lr, halvings = lr / 2, halvings + 1
        if dev_loss < best - KEEP_MARGIN:
            best, best_epoch = dev_loss, epoch
    assert halvings >= 2  # the run exercised the rule
    assert len(history) == config.max_epochs or len(history) - best_epoch == config.patience
    assert metrics["dev_loss"] == best and metrics["best_epoch"] == best_epoch
    assert metrics["epochs"] == len(history)


def test_the_kept_model_is_scored_and_described() -> None:
    """Bracket closing on dev, on test and at every open prefix of test, in [0, 1]; p_l by
    distance on test; the LSTM of Theorem 5's size; the loop's history, one evaluation per
    epoch."""
    config = Hewitt2020Config(**SMALL, max_epochs=2)
    metrics, artifacts, history = train_language_model(config, None)
    for name in ("dev_closing", "test_closing", "test_closing_prefixes"):
        assert 0.0 <= metrics[name] <= 1.0
    assert metrics["units"] == lstm_units(2, 3) and metrics["test_perplexity"] > 1.0
    curve = artifacts["test_curve"]
    assert len(curve["distance"]) == len(curve["p"]) > 0
    assert curve["distance"] == sorted(curve["distance"])
    assert artifacts["train_strings"] > 0 and metrics["epochs"] == 2
    assert {name for _, name, _ in history} == {"dev_loss", "lr", "train_loss"}
    assert len({step for step, _, _ in history}) == 2


def test_a_checkpointed_run_resumes_to_the_same_model(tmp_path: Path) -> None:
    config = Hewitt2020Config(**SMALL, max_epochs=3)
    whole, _, _ = train_language_model(config, None)
    checkpoint = tmp_path / "lm.pt"
    first, _, _ = train_language_model(config, None, checkpoint)
    assert checkpoint.exists() and first == whole
    again, _, _ = train_language_model(config, None, checkpoint, resume=True)
    assert again == whole


def test_a_damaged_checkpoint_is_moved_aside_and_the_model_trained_again(tmp_path: Path) -> None:
    config = Hewitt2020Config(**SMALL, max_epochs=3)
    whole, _, _ = train_language_model(config, None)
    checkpoint = tmp_path / "lm.pt"
    checkpoint.write_bytes(b"\x00" * 100)
    with pytest.warns(DamagedCheckpointWarning, match=r"lm\.pt: damaged checkpoint"):
        again, _, _ = train_language_model(config, None, checkpoint, resume=True)
    assert again == whole and (tmp_path / "lm.pt.damaged").read_bytes() == b"\x00" * 100
