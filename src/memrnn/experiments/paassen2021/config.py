"""One run's settings: a model of Paassen et al. (2021) on one of their nine benchmarks,
and the paper's neurons for it (section 4, footnote 4; Appendix A)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from memrnn.experiments.config import TrainConfig
from memrnn.experiments.paassen2021.paper import Model
from memrnn.tasks.rsm_benchmarks import COPY_TASKS, TASKS
from memrnn.validation import check_float

Task = Literal[
    "latch", "copy", "repeat_copy", "dyck1", "dyck2", "dyck3", "anbn", "palindrome", "json"
]  # the names of ``TASKS``
RESERVOIRS = {"rand": "random", "CRJ": "crj", "LDN": "ldn"}
DEEP_MODELS = ("GRU", "SRNN", "DSM")
LARGE_ESN = 1024  # the neurons of the appendix's ESNs (Tables 6 and 7)
BINARY_TASKS = tuple(task for task in TASKS if task not in COPY_TASKS)


@dataclass(frozen=True)
class Paassen2021Config(TrainConfig):
    """One model on one benchmark.

    Attributes:
        model: one of ``MODELS`` ("LDN-RSM", "GRU", ...).
        task: one of ``TASKS``.
        n_train, n_test: sequences per training and test set (100 in the paper).
        neurons: reservoir neurons or hidden units; 0 takes the paper's
            (``paper_neurons``: 256, and 512 for the reservoirs on copy); the appendix's
            ESNs have ``LARGE_ESN`` (1024).
        repeats: data sets evaluated (each with a fresh model) in this run.
        search: random hyperparameter sets tried first (0: use the values below).
        search_datasets: data sets each hyperparameter set is scored on.
        steps: training epochs of the deep models (one word each).
        weight_decay: of the deep models' Adam.
        The rest are the reservoir and readout hyperparameters of
        ``EchoStateNetwork`` and ``ReservoirStackMachine``.
    """

    model: Model = "LDN-RSM"
    task: Task = "dyck1"
    n_train: int = 100
    n_test: int = 100
    neurons: int = 0
    repeats: int = 1
    search: int = 0
    search_datasets: int = 3
    weight_decay: float = 1e-8
    spectral_radius: float = 0.9
    sparsity: float = 0.1
    input_scaling: float = 1.0
    cycle_weight: float = 0.5
    jump_weight: float = 0.25
    jump_length: int = 2
    input_weight: float = 1.0
    theta: float = 20.0
    alpha: float = 1e-5
    C: float = 100.0
    gamma_factor: float = 1.0

    def validate(self) -> None:
        super().validate()
        self.require_positive("n_train", "n_test", "repeats", "search_datasets")
        self.require_at_least(0, "neurons", "search")
        self.require_positive("jump_length")
        self.require_in("sparsity", 0.0, 1.0, open_low=True)
        for name in ("spectral_radius", "input_scaling", "alpha"):
            check_float(name, getattr(self, name), 0)
        for name in ("theta", "C", "gamma_factor"):
            check_float(name, getattr(self, name), above=0)


def paper_neurons(model: str, task: str) -> int:
    """The paper's neurons: 256 for every model, 512 for the reservoirs on the copy tasks
    (section 4, footnote 4; see the package docstring for repeat copy)."""
    return 512 if model not in DEEP_MODELS and task in COPY_TASKS else 256


def neurons_for(config: Paassen2021Config) -> int:
    """The run's neurons: its own, or the paper's where it sets none (0)."""
    return config.neurons or paper_neurons(config.model, config.task)


def row_label(model: str, large: bool) -> str:
    """A model's name in runs and tables: the appendix's ESNs carry their neurons."""
    return f"{model}-{LARGE_ESN}" if large else model
