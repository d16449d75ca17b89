"""The one gradient-descent loop every trained model goes through, its checkpoints, and
the same loop over many runs trained as one (:func:`train_group`). A run alone takes
torch's optimisers and ``torch.nn.utils.clip_grad_norm_``."""

from memrnn.training.checkpoint import (
    DamagedCheckpointError,
    DamagedCheckpointWarning,
    load_checkpoint,
    save_checkpoint,
)
from memrnn.training.group import GroupModel, GroupSteps, train_group
from memrnn.training.loop import LoopResult, LoopSettings, StepReport, Steps, train_loop
from memrnn.training.stacked import GROUPED, GroupedOptimizer, Stacked
from memrnn.training.stacked_adam import StackedAdam, clip_grad_norm_per_member_
from memrnn.training.stacked_rmsprop import StackedRMSprop

__all__ = [
    "GROUPED",
    "DamagedCheckpointError",
    "DamagedCheckpointWarning",
    "GroupModel",
    "GroupSteps",
    "GroupedOptimizer",
    "LoopResult",
    "LoopSettings",
    "Stacked",
    "StackedAdam",
    "StackedRMSprop",
    "StepReport",
    "Steps",
    "clip_grad_norm_per_member_",
    "load_checkpoint",
    "save_checkpoint",
    "train_group",
    "train_loop",
]
