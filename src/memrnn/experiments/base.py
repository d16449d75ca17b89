"""What an experiment is: its runs per profile, how to build one run, and its tables.

An experiment knows nothing of how runs are executed or stored: the runner trains what
``build`` returns, stores what comes back, and hands the stored records to ``tables`` and
``figures`` to make the report.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

import numpy as np
import torch
from torch import Tensor, nn

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Profile = Literal["smoke", "quick", "paper"]
PROFILES: tuple[Profile, ...] = ("smoke", "quick", "paper")
OPTIMIZERS = ("adam", "adamw", "rmsprop", "sgd")
PROFILE_MEANING = {
    "smoke": "seconds; used by the tests, the numbers mean nothing",
    "quick": "minutes on a laptop CPU, scaled down from the paper",
    "paper": "the paper's settings; a GPU or a cluster",
}


@dataclass(frozen=True)
class TrainConfig:
    """Settings every trained run has. Experiments extend this with their own fields.

    Attributes:
        seed: seeds the model's initialisation and the training data.
        steps: optimiser steps.
        batch_size: sequences per step.
        optimizer: "adam", "adamw", "rmsprop" or "sgd".
        lr: learning rate.
        weight_decay: decoupled weight decay with "adamw" (Loshchilov and Hutter), an L2
            penalty with the others (PyTorch's ``weight_decay`` argument); 0 turns it off.
        clip: clip the gradient's global norm to this (0 turns clipping off).
        eval_every: evaluate every this many steps (0: only at the end).
        checkpoint_every: write a checkpoint every this many steps (0: never).
        patience: stop after this many evaluations without improvement (0: never stop).
        monitor: the metric that early stopping and "best" refer to.
        monitor_mode: "max" if larger is better, else "min".
        device: "auto" (CUDA when present), "cpu", "cuda" or "cuda:N".
    """

    seed: int = 0
    steps: int = 1000
    batch_size: int = 10
    optimizer: str = "adam"
    lr: float = 1e-3
    weight_decay: float = 0.0
    clip: float = 1.0
    eval_every: int = 100
    checkpoint_every: int = 100
    patience: int = 0
    monitor: str = "loss"
    monitor_mode: str = "min"
    device: str = "auto"

    def validate(self) -> None:
        """Raise ValueError naming the first field whose value makes no sense."""
        self.require_positive("steps", "batch_size")
        for name in ("eval_every", "checkpoint_every", "patience", "clip"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: must not be negative, got {getattr(self, name)}")
        if not self.lr > 0:
            raise ValueError(f"lr: must be positive, got {self.lr}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(
                f"optimizer: expected {', '.join(OPTIMIZERS[:-1])} or {OPTIMIZERS[-1]}, "
                f"got {self.optimizer!r}"
            )
        if not self.weight_decay >= 0:
            raise ValueError(f"weight_decay: must not be negative, got {self.weight_decay}")
        if self.monitor_mode not in ("min", "max"):
            raise ValueError(f"monitor_mode: expected min or max, got {self.monitor_mode!r}")
        if self.device != "auto" and not self.device.startswith(("cpu", "cuda")):
            raise ValueError(f"device: expected auto, cpu or cuda[:N], got {self.device!r}")

    def require_positive(self, *names: str) -> None:
        """Raise ValueError naming the first of the int fields ``names`` that is below 1."""
        for name in names:
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: must be at least 1, got {getattr(self, name)}")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class Trainable(Protocol):
    """One run, built: a model and how to feed, score and inspect it."""

    @property
    def model(self) -> nn.Module:
        """The network being trained, on its device."""

    def training_batch(self, rng: np.random.Generator) -> Any:
        """The next training batch, already on the model's device."""

    def loss(self, batch: Any) -> Tensor:
        """The scalar training loss of ``self.model`` on ``batch``."""

    def evaluate(self, rng: np.random.Generator) -> dict[str, float]:
        """Metrics of the model now; must include the config's ``monitor``."""

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        """JSON-able data for figures, taken once at the end of training."""


@dataclass(frozen=True)
class RunSpec:
    """One run of an experiment: which variant, at what scale, with what settings."""

    experiment: str
    name: str
    profile: str
    config: Mapping[str, Any]
    model: str = ""
    task: str = ""
    gpus: float = 0.0

    @property
    def seed(self) -> int:
        return int(self.config["seed"])

    @property
    def key(self) -> str:
        """Identifies the run's content: the same key means the same computation."""
        ident = {
            "experiment": self.experiment,
            "name": self.name,
            "profile": self.profile,
            "config": dict(self.config),
        }
        blob = json.dumps(ident, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "config": dict(self.config)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunSpec:
        return cls(**{**data, "config": dict(data["config"])})


@dataclass
class RunOutput:
    """What a finished run hands back to the driver."""

    metrics: dict[str, float]
    history: list[tuple[int, str, float]] = field(default_factory=list)
    artifacts: dict[str, Any] = field(default_factory=dict)
    steps_done: int = 0
    wall_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunOutput:
        history = [(int(s), str(n), float(v)) for s, n, v in data["history"]]
        return cls(**{**data, "history": history})


@dataclass(frozen=True)
class RunRecord:
    """A stored run, as the report sees it."""

    spec: RunSpec
    metrics: Mapping[str, float]
    artifacts: Mapping[str, Any]
    code_version: str
    wall_seconds: float
    history: Sequence[tuple[int, str, float]] = ()  # (step, metric, value) of each evaluation


@dataclass(frozen=True)
class Cell:
    """Our value (a mean over ``seeds`` when several runs feed it) and the paper's, each
    with its standard deviation over repeats where the table reports one, and whether
    each is set in bold (by the paper's own rule for what counts as solved)."""

    value: float | None
    paper: float | None = None
    seeds: tuple[int, ...] = ()
    wall_seconds: float = 0.0
    std: float | None = None
    paper_std: float | None = None
    bold: bool = False
    paper_bold: bool = False


@dataclass(frozen=True)
class Table:
    """A table of the report: rows by columns of our value beside the paper's."""

    name: str
    caption: str
    columns: Sequence[str]
    rows: Mapping[str, Mapping[str, Cell]]


class Experiment(ABC):
    """A paper's experiment: its runs per profile, how to build a run, and its tables."""

    name: ClassVar[str]
    title: ClassVar[str]
    reproduces: ClassVar[str]
    config_type: ClassVar[type[TrainConfig]]
    reference: ClassVar[str] = "paper"  # whose numbers stand beside ours in the tables

    @abstractmethod
    def runs(self, profile: Profile) -> list[RunSpec]:
        """Every run the profile needs, fully configured."""

    @abstractmethod
    def build(self, config: TrainConfig, device: torch.device) -> Trainable:
        """The model, data and scoring of one run, with the model on ``device``."""

    def fit_run(self, config: TrainConfig) -> RunOutput | None:
        """The whole of a run that is not a gradient-descent loop, or None (the default:
        the runner trains what ``build`` returns). Experiments whose models are fitted
        estimators (reservoir models, solved in closed form) return the run's output."""
        return None

    @abstractmethod
    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        """The report's tables from the stored runs of one profile."""

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        """Named matplotlib figures from the stored runs; none by default."""
        return {}

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        """Sentences computed from the stored runs, for the top of the report section."""
        return []

    def scale(self, profile: Profile) -> str:
        """One paragraph on what the profile's runs are, compared with the paper's."""
        return PROFILE_MEANING[profile]

    def default_config(self) -> TrainConfig:
        """The settings ``memrnn train`` starts from: the quick profile's first run."""
        return self.config_type(**self.runs("quick")[0].config)
