"""The one gradient-descent loop every trained model goes through, and its checkpoints."""

from memrnn.training.checkpoint import (
    DamagedCheckpointError,
    DamagedCheckpointWarning,
    load_checkpoint,
    save_checkpoint,
)
from memrnn.training.loop import LoopResult, LoopSettings, StepReport, Steps, train_loop

__all__ = [
    "DamagedCheckpointError",
    "DamagedCheckpointWarning",
    "LoopResult",
    "LoopSettings",
    "StepReport",
    "Steps",
    "load_checkpoint",
    "save_checkpoint",
    "train_loop",
]
