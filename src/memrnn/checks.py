"""Argument checks shared by the public functions of several modules."""

from __future__ import annotations

import numpy as np


def is_int(value: object) -> bool:
    """Whether ``value`` is a Python or NumPy integer; bools (ints to Python) are not."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
