"""The settings of one run of Grefenstette et al. (2015), section 4: the task, the model
and its sizes, the training and test lengths, the curriculum and the memory gates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from memrnn.experiments.config import MonitorMode, TrainConfig

Model = Literal["lstm", "stack", "queue", "deque"]  # "lstm": the Deep LSTM
MODELS: tuple[Model, ...] = get_args(Model)
Task = Literal["copy", "reversal", "bigram_flip", "svo_sov", "conjugation"]  # TASKS' names
# What an evaluation reports when it scores only the curriculum's lengths (``score_every``);
# the loop adds the training loss to every evaluation.
EVERY_EVALUATION = ("curriculum", "curriculum_coarse", "train_loss")
MODEL_NAMES = {"lstm": "Deep LSTM", "stack": "Stack-LSTM", "queue": "Queue-LSTM",
               "deque": "DeQue-LSTM"}  # fmt: skip


@dataclass(frozen=True)
class Grefenstette2015Config(TrainConfig):
    """One transduction run (the training fields come from ``TrainConfig``).

    Attributes:
        task: one of ``TASKS``.
        model: "lstm" (Deep LSTM), "stack", "queue" or "deque".
        layers: the Deep LSTM's layers (the memory models have one).
        hidden, embedding, memory_width: sizes (the paper: 256 or 512, 64, 256).
        vocab_size: source symbols of copy, reversal and bigram flip (the ITG tasks take
            theirs from their grammars).
        min_length, max_length: source lengths of training (the paper: 8-64).
        test_min_length, test_max_length: the longer test lengths (the paper: 65-128).
        curriculum_start: the longest training source at first; 0 turns the curriculum
            off (every length from the start).
        curriculum_increment, curriculum_threshold: see the package docstring.
        pop_bias: the pop gates' initial bias.
        push_bias, bottom_push_bias: the push gates' initial biases, at the top end and
            at a deque's bottom end.
        gate_noise: the standard deviation of Gaussian noise on the memory gates'
            pre-activations during training, once the curriculum has reached
            ``max_length`` (0 in the paper; see ``MemoryRNN``).
        eval_size: sequences decoded per score.
        score_every: score the training and the test lengths every this many steps and
            after the last; the evaluations between them score only the curriculum's
            current lengths, which training needs (0: every evaluation scores all
            three). A multiple of ``eval_every``. Training is the same either way: each
            evaluation draws from a generator of its own, the current lengths first.
    """

    steps: int = 8000
    batch_size: int = 32
    lr: float = 1e-3
    eval_every: int = 100
    checkpoint_every: int = 1000
    monitor: str = "curriculum_coarse"
    monitor_mode: MonitorMode = "max"
    task: Task = "reversal"
    model: Model = "stack"
    layers: int = 1
    hidden: int = 64
    embedding: int = 32
    memory_width: int = 64
    vocab_size: int = 16
    min_length: int = 1
    max_length: int = 32
    test_min_length: int = 33
    test_max_length: int = 64
    curriculum_start: int = 4
    curriculum_increment: int = 4
    curriculum_threshold: float = 0.9
    pop_bias: float = -1.0
    push_bias: float = 0.0
    bottom_push_bias: float = 0.0
    gate_noise: float = 0.0
    eval_size: int = 200
    score_every: int = 0

    def validate(self) -> None:
        super().validate()
        self.require_positive("layers", "hidden", "embedding", "memory_width", "vocab_size")
        if not self.gate_noise >= 0:
            raise ValueError(
                f"gate_noise: expected a standard deviation >= 0, got {self.gate_noise}"
            )
        self.require_positive("min_length", "eval_size", "curriculum_increment")
        if not self.min_length <= self.max_length < self.test_min_length <= self.test_max_length:
            raise ValueError(
                "min_length, max_length, test_min_length, test_max_length: need "
                f"min <= max < test_min <= test_max, got {self.min_length}, {self.max_length}, "
                f"{self.test_min_length}, {self.test_max_length}"
            )
        self.require_at_least(0, "curriculum_start", "score_every")
        if self.score_every:
            self._check_scores()
        self.require_in("curriculum_threshold", 0.0, 1.0)

    def _check_scores(self) -> None:
        """What scoring the training and test lengths less often than evaluating needs."""
        if not self.eval_every or self.score_every % self.eval_every:
            raise ValueError(
                f"score_every: expected a multiple of eval_every ({self.eval_every}), got "
                f"{self.score_every}"
            )
        if self.patience:
            raise ValueError(
                "score_every: a run that stops early would end on an evaluation that does "
                f"not score the test lengths; set patience 0 (got {self.patience})"
            )
        if self.monitor not in EVERY_EVALUATION:
            raise ValueError(
                f"monitor: with score_every, one of {', '.join(EVERY_EVALUATION)}, which "
                f"every evaluation reports, got {self.monitor!r}"
            )
