"""The settings of one reversal run, and the runs of each profile: every variant over
seeds, at the scale the profile sets."""

from __future__ import annotations

from dataclasses import dataclass

from memrnn.experiments.base import Profile
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.grid import Grid
from memrnn.experiments.trask2016.variants import VARIANTS
from memrnn.models.controller import CellKind
from memrnn.validation import check_float


@dataclass(frozen=True)
class Trask2016Config(TrainConfig):
    """Settings of one reversal run (the training fields come from ``TrainConfig``).

    Attributes:
        vocab_size: k, symbols in the sequences.
        hidden_size: units of the controller RNN.
        output_hidden: units of o'_t, the layer the gates and the output are read from.
        memory_width: m, the width of the stack's values.
        cell: "rnn" (the tutorial's) or "lstm".
        push_bias, pop_bias: the initial biases of the push and pop gates, or with
            ``bias_range`` the low ends of the ranges they are drawn from.
        bias_range: each initial bias is drawn from U(low, low + bias_range) at
            initialisation, by torch's generator (which the runner seeds with ``seed``);
            0 for the constants themselves.
        autoencoder: train the tutorial's autoencoder side task (``autoencoder_loss``)
            beside the reversal.
        min_length, max_length: training sequences have a length drawn uniformly here.
        long_length: the longer length at which generalisation is measured.
        eval_size: sequences per evaluation, per length.
    """

    batch_size: int = 50
    lr: float = 0.01
    vocab_size: int = 4
    hidden_size: int = 8
    output_hidden: int = 8
    memory_width: int = 4
    cell: CellKind = "rnn"
    push_bias: float = 0.0
    pop_bias: float = 0.0
    bias_range: float = 0.0
    autoencoder: bool = False
    min_length: int = 2
    max_length: int = 6
    long_length: int = 12
    eval_size: int = 200

    def validate(self) -> None:
        super().validate()
        if not 1 <= self.min_length <= self.max_length:
            raise ValueError(
                f"min_length: need 1 <= min_length <= max_length, got {self.min_length} "
                f"and {self.max_length}"
            )
        self.require_positive("long_length", "vocab_size", "hidden_size", "output_hidden")
        self.require_positive("memory_width", "eval_size")
        check_float("bias_range", self.bias_range, 0)


# Each variant over seeds; what changes with the profile.
_VARIANT_AXIS = tuple(VARIANTS)
PROFILES: dict[Profile, Grid] = {
    "smoke": Grid(
        {"variant": _VARIANT_AXIS, "seed": (0,)},
        {
            "steps": 20,
            "eval_every": 10,
            "checkpoint_every": 10,
            "batch_size": 10,
            "eval_size": 10,
            "max_length": 3,
            "long_length": 5,
        },
    ),
    "quick": Grid(
        {"variant": _VARIANT_AXIS, "seed": (0, 1, 2, 3, 4)},
        {"steps": 1500, "eval_every": 250, "checkpoint_every": 250},
    ),
    "paper": Grid(
        {"variant": _VARIANT_AXIS, "seed": tuple(range(10))},
        {
            "steps": 15000,
            "lr": 0.003,
            "eval_every": 1000,
            "checkpoint_every": 1000,
            "max_length": 10,
            "long_length": 20,
        },
    ),
}
