"""The optimisers a run may name: torch's own, on their multi-tensor path."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor

from memrnn.validation import check_choice

OPTIMIZERS: dict[str, Callable[..., torch.optim.Optimizer]] = {
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "rmsprop": torch.optim.RMSprop,
    "sgd": torch.optim.SGD,
}


def make_optimizer(
    name: str, params: Iterable[Tensor], lr: float, weight_decay: float = 0.0
) -> torch.optim.Optimizer:
    """torch's optimiser ``name`` ("adam", "adamw", "rmsprop" or "sgd") over ``params``.

    It takes torch's multi-tensor (``foreach``) path on a CPU as well, where torch's
    default is a loop over the tensors in Python: the same arithmetic per element, so the
    same numbers bit for bit, with fewer calls.

    Raises:
        ValueError: an unknown ``name``.
    """
    kind = OPTIMIZERS[check_choice("optimizer", name, tuple(OPTIMIZERS))]
    return kind(params, lr=lr, weight_decay=weight_decay, foreach=True)
