"""The settings of one associative-retrieval run, and the runs of each profile: every
model at each number of recurrent units R and seed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from memrnn.experiments.base import Profile
from memrnn.experiments.config import MonitorMode, TrainConfig
from memrnn.experiments.grid import Grid, Point
from memrnn.models.fast_weights import Norm
from memrnn.tasks.retrieval import SPLIT_SIZES
from memrnn.training.compiled import can_compile
from memrnn.validation import check_float

Model = Literal["fast_weights", "irnn", "lstm", "alstm"]  # registered models (memrnn.models)
MODELS: tuple[Model, ...] = get_args(Model)
# Models whose training step torch.compile makes about twice as fast at these sizes on a
# CPU (an A-LSTM's and the fast weights' steps are many small operations); the IRNN gains
# less than its compile time, and the LSTM, one oneDNN kernel, is slower compiled.
COMPILED: tuple[Model, ...] = ("alstm", "fast_weights")


def _compiled(point: Point) -> tuple[bool]:
    """Compiled where it pays and a C++ compiler is found (eager, and recorded so, where
    none is)."""
    return (point["model"] in COMPILED and can_compile(),)


# Every model at each R and seed; the smoke profile on small splits.
PROFILES: dict[Profile, Grid] = {
    "smoke": Grid(
        {"model": MODELS, "hidden": (8,), "seed": (0,)},
        {
            "steps": 30,
            "eval_every": 10,
            "checkpoint_every": 10,
            "train_size": 500,
            "validation_size": 200,
            "test_size": 200,
        },
    ),
    "quick": Grid(
        {"model": MODELS, "hidden": (20, 50), "seed": (0,), "compiled": _compiled},
        {"steps": 30_000},
    ),
    "paper": Grid(
        {"model": MODELS, "hidden": (20, 50, 100), "seed": (0, 1, 2), "compiled": _compiled},
        {"steps": 100_000},
    ),
}


@dataclass(frozen=True)
class Ba2016Config(TrainConfig):
    """One associative-retrieval run (the training fields come from ``TrainConfig``).

    Attributes:
        model: "fast_weights", "irnn", "lstm" or "alstm".
        hidden: R, the recurrent units.
        pairs: key-value pairs per example (4: ``c9k8j3f1??c``).
        decay, fast_lr, inner_steps: lambda, eta and S of the fast weights.
        norm: where the fast weights' layer normalisation sits ("sum": the paper).
        recurrent_scale: the recurrent matrix starts as this times the identity
            (fast weights and IRNN only).
        readout: units of the hidden ReLU layer before the softmax.
        data_seed: seeds the splits, shared by every run of a profile.
        train_size, validation_size, test_size: examples per split.
        compiled: train with the loss's forward and backward compiled by
            ``torch.compile`` (``memrnn.training.compiled``): the same model and data,
            rounded differently from the eager step. The quick and paper profiles compile
            the A-LSTM and the fast weights where a C++ compiler is found.
    """

    steps: int = 30_000
    batch_size: int = 128
    lr: float = 1e-3
    clip: float = 5.0
    eval_every: int = 1000
    checkpoint_every: int = 1000
    monitor: str = "val_error"
    monitor_mode: MonitorMode = "min"
    model: Model = "fast_weights"
    hidden: int = 20
    pairs: int = 4
    decay: float = 0.95
    fast_lr: float = 0.5
    inner_steps: int = 1
    norm: Norm = "sum"
    recurrent_scale: float = 0.05
    readout: int = 100
    data_seed: int = 0
    train_size: int = SPLIT_SIZES[0]
    validation_size: int = SPLIT_SIZES[1]
    test_size: int = SPLIT_SIZES[2]
    compiled: bool = False

    def validate(self) -> None:
        super().validate()
        self.require_positive("hidden", "pairs", "inner_steps", "readout")
        self.require_positive("train_size", "validation_size", "test_size")
        self.require_at_least(0, "data_seed")
        self.require_in("decay", 0.0, 1.0)
        check_float("fast_lr", self.fast_lr, 0)
        check_float("recurrent_scale", self.recurrent_scale, 0)

    def model_options(self) -> dict[str, Any]:
        """The encoder's own settings."""
        if self.model == "fast_weights":
            return {
                "decay": self.decay,
                "fast_lr": self.fast_lr,
                "inner_steps": self.inner_steps,
                "recurrent_scale": self.recurrent_scale,
                "norm": self.norm,
            }
        if self.model == "irnn":
            return {"recurrent_scale": self.recurrent_scale}
        return {}
