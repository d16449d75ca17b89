"""What an experiment is: its runs per profile, how one run is carried out, its tables.

An experiment knows nothing of how runs are executed or stored. It is one of two kinds:
a ``TrainedExperiment`` builds a ``Trainable`` that the runner trains by gradient
descent; a ``FittedExperiment`` carries out a whole run itself (estimators fitted in
closed form, constructions verified, loops of its own) and returns its output. The
runner stores what comes back and hands the stored records to ``tables`` and
``figures`` to make the report.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np
import torch

from memrnn.errors import UserError
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.profiles import PROFILE_MEANING, PROFILE_NAMES, Profile
from memrnn.training import Steps

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from memrnn.experiments.tables import Table

C = TypeVar("C", bound=TrainConfig)


@dataclass(frozen=True)
class RunContext:
    """Where a run is carried out, as opposed to what it computes (its config): the same
    config gives the same numbers in any context.

    Attributes:
        device: the device the run's model and tensors live on.
        data: the folder where data sets made once are kept and read again (each
            experiment in a subfolder of its own); None makes them in memory each time.
        checkpoint: where a fitted run that trains by gradient descent keeps its
            checkpoint (None: it keeps none); the runner keeps a trained run's itself.
        resume: whether such a run continues from its checkpoint when there is one.
    """

    device: torch.device
    data: Path | None = None
    checkpoint: Path | None = None
    resume: bool = False


class Trainable(Steps, Protocol):
    """One run, built: what the training loop drives (a model, its batches, its loss, its
    metrics), and the data for the report's figures."""

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        """JSON-able data for figures, taken once at the end of training."""


@dataclass(frozen=True)
class RunSpec:
    """One run of an experiment: which variant, at what scale, with what settings.

    Attributes:
        experiment, name, profile: the experiment's name, the run's name within it, and
            the profile it belongs to.
        config: every setting of the run (a ``TrainConfig`` as a dict).
        model, task: short labels of the model and the task, for listings of runs.
        tags: the run's coordinates in its experiment's grid (task, model, variant, seed,
            ...), which the tables group and select runs by. Labels only: like ``model``
            and ``task`` they are not part of ``key``, so relabelling changes no key.
        gpus: GPUs a scheduler should reserve for the run.
    """

    experiment: str
    name: str
    profile: str
    config: Mapping[str, Any]
    model: str = ""
    task: str = ""
    gpus: float = 0.0
    tags: Mapping[str, Any] = field(default_factory=dict)

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
        return {**dataclasses.asdict(self), "config": dict(self.config), "tags": dict(self.tags)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunSpec:
        tags = dict(data.get("tags", {}))
        return cls(**{**data, "config": dict(data["config"]), "tags": tags})


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
    span: tuple[float, float] | None = None  # when it started and ended (Unix seconds)


class Experiment(ABC, Generic[C]):
    """A paper's experiment: its runs per profile and its tables. Subclass one of its two
    kinds, ``TrainedExperiment`` or ``FittedExperiment``, and give it a ``name``: the
    registry finds it (``memrnn.experiments.registry``)."""

    name: ClassVar[str]
    title: ClassVar[str]
    reproduces: ClassVar[str]
    config_type: type[C]
    reference: ClassVar[str] = "paper"  # whose numbers stand beside ours in the tables
    profiles: ClassVar[tuple[Profile, ...]] = PROFILE_NAMES  # the profiles it has

    def offer(self, profile: str) -> Profile:
        """``profile``, checked to be one this experiment has (a UserError naming them)."""
        if profile not in self.profiles:
            raise UserError(
                f"--profile {profile}: {self.name} has no such profile; its profiles are "
                f"{', '.join(self.profiles)}"
            )
        return profile  # one of ``profiles``

    @abstractmethod
    def runs(self, profile: Profile) -> list[RunSpec]:
        """Every run the profile needs, fully configured (``memrnn.experiments.grid``
        builds them from the grids of a ``PROFILES`` table)."""

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

    def group_key(self, config: C) -> Hashable | None:
        """Runs whose configs give the same key may train together as one batched model
        (K members with stacked parameters, ``fit_group``): runs that differ only in seed
        or learning rate, of a model that ``memrnn.models.grouped`` can stack. None, the
        default, trains the run alone."""
        return None


class TrainedExperiment(Experiment[C]):
    """An experiment whose runs the runner trains by gradient descent (its loop in
    ``memrnn.runner.train``: seeded, checkpointed, resumable)."""

    #: The metrics each evaluation of a run reports, which ``monitor`` may name; the
    #: runner checks a config's monitor against them before training starts.
    metrics: ClassVar[tuple[str, ...]] = ()
    #: Whether runs of one group that share a seed draw the same training batches (their
    #: data depends on the seed and the settings, not on how the model learns), so that
    #: a group draws each batch once (``memrnn.training.train_group``'s ``batches_from``).
    shares_batches: ClassVar[bool] = False

    @abstractmethod
    def build(self, config: C, context: RunContext) -> Trainable:
        """The model, data and scoring of one run, with the model on ``context.device``."""

    def fitted(self, config: C, context: RunContext) -> RunOutput | None:
        """The output of a run that is fitted, not trained (the matrix's reservoir
        models, fitted in closed form), or None, the default: the runner trains it."""
        return None

    def finished(self, config: C, output: RunOutput) -> RunOutput:
        """A trained run's output once its artifacts are made; by default as it is (the
        matrix computes its test scores from its range evaluation here)."""
        return output


class FittedExperiment(Experiment[C]):
    """An experiment whose runs are not the runner's gradient-descent loop: estimators
    fitted in closed form, constructions verified, or a training recipe of its own."""

    @abstractmethod
    def fit_run(self, config: C, context: RunContext) -> RunOutput:
        """Carry out one whole run and return its metrics, history and artifacts."""

    def fit_group(self, configs: Sequence[C], contexts: Sequence[RunContext]) -> list[RunOutput]:
        """Carry out runs of one ``group_key`` together, an output per config, each the
        same (to float rounding) as ``fit_run`` gives it alone. By default, one by one."""
        return [self.fit_run(c, context) for c, context in zip(configs, contexts, strict=True)]
