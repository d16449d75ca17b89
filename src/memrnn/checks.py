"""Argument checks shared by the public functions of several modules."""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor


def is_int(value: object) -> bool:
    """Whether ``value`` is a Python or NumPy integer; bools (ints to Python) are not."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_token_ids(tokens: object, vocabulary: int, *, min_steps: int = 0) -> None:
    """Raise ValueError unless ``tokens`` is a (B, T) integer tensor of ids in
    0 .. vocabulary - 1 with T >= ``min_steps``."""
    if not isinstance(tokens, Tensor) or tokens.dim() != 2 or tokens.shape[1] < min_steps:
        shape = tuple(tokens.shape) if isinstance(tokens, Tensor) else type(tokens).__name__
        steps = f" with T >= {min_steps}" if min_steps else ""
        raise ValueError(f"tokens: expected a (B, T) tensor of ids{steps}, got {shape}")
    if tokens.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"tokens: expected integer ids, got dtype {tokens.dtype}")
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= vocabulary):
        raise ValueError(f"tokens: ids must lie in 0 .. {vocabulary - 1}")
