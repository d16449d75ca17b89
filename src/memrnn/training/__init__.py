"""The one gradient-descent loop every trained model goes through, and its checkpoints."""

from memrnn.training.checkpoint import (
    DamagedCheckpointError,
    DamagedCheckpointWarning,
    load_checkpoint,
    save_checkpoint,
)
from memrnn.training.loop import LoopResult, LoopSettings, StepReport, Steps, train_loop
from memrnn.training.stacked_adam import StackedAdam, clip_grad_norm_per_member_

__all__ = [
    "DamagedCheckpointError",
    "DamagedCheckpointWarning",
    "LoopResult",
    "LoopSettings",
    "StackedAdam",
    "StepReport",
    "Steps",
    "clip_grad_norm_per_member_",
    "load_checkpoint",
    "save_checkpoint",
    "train_loop",
]
