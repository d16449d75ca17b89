"""The settings of one cell of the matrix: a model trained on a task's short inputs and
tested on every longer length up to a bound."""

from __future__ import annotations

from dataclasses import dataclass

from memrnn.experiments.config import MonitorMode, TrainConfig
from memrnn.models.registry import model_names
from memrnn.tasks import task_names
from memrnn.validation import check_choice

# The reservoir models of Paassen et al. (2021): fitted in closed form (``reservoir``).
RESERVOIR_MODELS = ("esn", "rsm")


@dataclass(frozen=True)
class MatrixConfig(TrainConfig):
    """One model on one task (the training fields come from ``TrainConfig``).

    Attributes:
        model: a name of the model registry (``memrnn.models.build_model``), or a
            reservoir model (``RESERVOIR_MODELS``).
        task: a name of the task registry (``memrnn.tasks.make_task``).
        hidden_size: the model's hidden units (its other sizes take the registry's
            defaults).
        vocab_size: the symbols of a task that takes a ``vocab_size`` (the transduction
            tasks); 0 keeps the task's own.
        train_max: N: training lengths run from the task's shortest to N.
        test_max: every length from 1 to this is evaluated at the end (Delétang et al.
            2023 call it range evaluation); the lengths above N are the test lengths.
        eval_size: sequences per length in each evaluation.
    """

    steps: int = 2000
    batch_size: int = 32
    lr: float = 1e-3
    eval_every: int = 200
    checkpoint_every: int = 500
    monitor: str = "train_score"
    monitor_mode: MonitorMode = "max"
    model: str = "lstm"
    task: str = "reverse_string"
    hidden_size: int = 32
    vocab_size: int = 0
    train_max: int = 10
    test_max: int = 40
    eval_size: int = 32

    def validate(self) -> None:
        super().validate()
        check_choice("model", self.model, (*model_names(), *RESERVOIR_MODELS))
        check_choice("task", self.task, task_names())
        self.require_positive("hidden_size", "train_max", "eval_size")
        self.require_at_least(0, "vocab_size")
        self.require_at_least(2, "test_max")
        if self.test_max <= self.train_max:  # a pair of fields: the message names both
            raise ValueError(
                f"test_max: expected more than train_max ({self.train_max}), got {self.test_max}"
            )
