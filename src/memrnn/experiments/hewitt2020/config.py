"""The settings of one run of hewitt2020: a construction to verify, or an LSTM language
model to train with Appendix H.3's recipe."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from memrnn.experiments.config import TrainConfig

Kind = Literal["srnn-onehot", "lstm-onehot", "srnn-log", "lstm-log", "srnn-dfa"]  # KINDS


@dataclass(frozen=True)
class Hewitt2020Config(TrainConfig):
    """One run: a construction to verify, or an LSTM language model to train.

    Attributes:
        part: "construction" or "lm".
        k, m: the language Dyck-(k,m).
        kind: the construction (part "construction").
        walk_steps: 0 for the exhaustive search, else random walks of this many steps.
        k_last: 0 for one language; else a sweep, verifying every Dyck-(k', m) with
            k <= k' <= k_last exhaustively in one run.
        train_tokens, dev_tokens, test_tokens: split sizes (part "lm").
        max_epochs: a cap on the epochs (100, as in the authors' code).
        patience: epochs after the last kept model before stopping (3).
        lr: the starting learning rate (0.01; Appendix H.3 uses 0.001 for 2e7 tokens,
            and for k = 128 from 2e6).
        batch_size: strings per Adam step (10).
        clip: 0: no gradient is clipped (none is in the authors' code); other values
            are refused.
        seed: the model's initialisation and the order of the training batches.
        data_seed: the splits; every seed of a cell shares them, made once and kept in
            the run's data folder (the same strings as made in memory).
    """

    part: Literal["construction", "lm"] = "lm"
    k: int = 2
    m: int = 3
    kind: Kind = "lstm-log"
    walk_steps: int = 0
    k_last: int = 0
    train_tokens: int = 20_000
    dev_tokens: int = 20_000
    test_tokens: int = 300_000
    max_epochs: int = 100
    lr: float = 0.01
    batch_size: int = 10
    clip: float = 0.0
    patience: int = 3
    data_seed: int = 0

    def validate(self) -> None:
        super().validate()
        self.require_positive("k", "m", "train_tokens", "dev_tokens", "test_tokens", "max_epochs")
        self.require_at_least(0, "data_seed", "walk_steps", "k_last")
        if self.k_last and (self.k_last < self.k or self.walk_steps or self.part != "construction"):
            raise ValueError(
                f"k_last: a sweep is an exhaustive construction run with k_last >= k = {self.k}, "
                f"got k_last={self.k_last}, walk_steps={self.walk_steps}, part={self.part!r}"
            )
        if self.part == "lm" and self.k < 2:
            raise ValueError(f"k: the LSTM size 3m ceil(log2 k) - m needs k >= 2, got {self.k}")
        if self.part == "lm" and self.patience < 1:
            raise ValueError(f"patience: expected an int >= 1, got {self.patience}")
        if self.clip:
            raise ValueError(f"clip: the recipe clips no gradient, expected 0, got {self.clip}")
