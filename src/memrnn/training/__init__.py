"""The one gradient-descent loop every trained model goes through, alone
(:func:`train_loop`) or many runs as one (:func:`train_group`), and its checkpoints. A
run takes torch's optimisers (:func:`make_optimizer`) and
``torch.nn.utils.clip_grad_norm_``."""

from memrnn.training.checkpoint import (
    DamagedCheckpointError,
    DamagedCheckpointWarning,
    load_checkpoint,
    save_checkpoint,
)
from memrnn.training.group import GroupSteps, train_group
from memrnn.training.loop import LoopResult, LoopSettings, StepReport, Steps, train_loop
from memrnn.training.optimizers import OPTIMIZERS, make_optimizer

__all__ = [
    "OPTIMIZERS",
    "DamagedCheckpointError",
    "DamagedCheckpointWarning",
    "GroupSteps",
    "LoopResult",
    "LoopSettings",
    "StepReport",
    "Steps",
    "load_checkpoint",
    "make_optimizer",
    "save_checkpoint",
    "train_group",
    "train_loop",
]
