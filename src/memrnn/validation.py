"""Argument checks at the public boundary, without torch.

Each check takes the argument's name first and raises ValueError naming it, in one wording:
"k: expected an int >= 1, got 0". A wrong type is a ValueError too, as the functions that
use these checks document, so a caller catches one kind of error for any bad argument.
Tensor checks live with torch, in :mod:`memrnn.structures.checks`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Sequence
from typing import TypeVar, cast

import numpy as np

T = TypeVar("T")

MAX_SEED = 2**32 - 1  # numpy's legacy seeding and most tools take seeds below 2**32
MAX_INT = 2**63 - 1  # the largest integer SQLite (the results store) keeps

RandomState = int | np.integer | np.random.Generator | None
"""Where random draws come from: a seed (an int >= 0), a ``numpy.random.Generator``
(used as it is), or None for fresh entropy."""


def is_int(value: object) -> bool:
    """Whether ``value`` is a Python or NumPy integer; bools (ints to Python) are not."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """Whether ``value`` is a Python or NumPy int or float; bools are not."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def check_int(
    name: str, value: object, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``value`` as a Python int; ValueError naming ``name`` unless it is an int (not a
    bool) in [minimum, maximum] (either bound may be left out)."""
    if (
        not is_int(value)
        or (minimum is not None and value < minimum)  # type: ignore[operator]
        or (maximum is not None and value > maximum)  # type: ignore[operator]
    ):
        raise ValueError(f"{name}: expected an int{_bounds(minimum, maximum)}, got {value!r}")
    return int(value)  # type: ignore[call-overload]


def check_float(
    name: str,
    value: object,
    minimum: float | None = None,
    maximum: float | None = None,
    *,
    above: float | None = None,
    below: float | None = None,
) -> float:
    """``value`` as a Python float; ValueError naming ``name`` unless it is a finite number
    (not a bool) with minimum <= value <= maximum and above < value < below (each bound
    may be left out; give at most one of minimum and above, and of maximum and below)."""
    if (minimum is not None and above is not None) or (maximum is not None and below is not None):
        raise ValueError("check_float: give one lower and one upper bound at most")
    ok = (
        is_number(value)
        and math.isfinite(value)  # type: ignore[arg-type]
        and (minimum is None or value >= minimum)  # type: ignore[operator]
        and (above is None or value > above)  # type: ignore[operator]
        and (maximum is None or value <= maximum)  # type: ignore[operator]
        and (below is None or value < below)  # type: ignore[operator]
    )
    if not ok:
        lower = "" if minimum is None and above is None else "[" if above is None else "("
        upper = "" if maximum is None and below is None else "]" if below is None else ")"
        lo, hi = minimum if above is None else above, maximum if below is None else below
        if lower and upper:
            where = f" in {lower}{lo:g}, {hi:g}{upper}"
        elif lower:
            where = f" {'>=' if lower == '[' else '>'} {lo:g}"
        elif upper:
            where = f" {'<=' if upper == ']' else '<'} {hi:g}"
        else:
            where = ""
        raise ValueError(f"{name}: expected a finite number{where}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


def check_flag(name: str, value: object) -> bool:
    """``value``; ValueError naming ``name`` unless it is a bool (a 0, 1 or string given
    for a switch is a mistake, not a request)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name}: expected True or False, got {value!r}")
    return value


def check_sizes(**sizes: object) -> None:
    """ValueError naming the first of ``sizes`` (name=value) that is not an int >= 1."""
    for name, size in sizes.items():
        check_int(name, size, 1)


def check_choice(name: str, value: object, choices: Collection[T]) -> T:
    """``value``, typed as one of ``choices`` (a tuple of literals narrows it to their
    type); ValueError naming ``name`` and listing ``choices`` unless it is one."""
    if value not in choices:
        listed = ", ".join(str(c) for c in choices)
        raise ValueError(f"{name}: expected one of {listed}, got {value!r}")
    return cast(T, value)


def physical_memory() -> int:
    """This machine's memory in bytes (2**62 where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return 2**62


def check_fits_in_memory(name: str, value: object, needed_bytes: int) -> None:
    """ValueError naming ``name`` if ``value`` would take more than this machine's memory
    (``needed_bytes``): refused at once, not after minutes of swapping or an endless
    allocation."""
    have = physical_memory()
    if needed_bytes > have:
        raise ValueError(
            f"{name}: {value} needs {needed_bytes / 2**30:.3g} GiB, more than this machine's "
            f"{have / 2**30:.3g} GiB"
        )


def check_int_range(
    names: tuple[str, str], low: object, high: object, minimum: int = 0
) -> tuple[int, int]:
    """``(low, high)`` as ints; ValueError naming the culprit unless both are ints >=
    ``minimum`` with low <= high."""
    lo, hi = check_int(names[0], low, minimum), check_int(names[1], high, minimum)
    if lo > hi:
        raise ValueError(f"{names[0]} {lo} is greater than {names[1]} {hi}")
    return lo, hi


def check_distribution(name: str, values: object, size: int) -> tuple[float, ...]:
    """``values`` as floats; ValueError naming ``name`` unless they are ``size`` positive
    finite numbers summing to 1 (within 1e-9)."""
    if not (
        isinstance(values, Sequence)
        and len(values) == size
        and all(is_number(x) and math.isfinite(x) and x > 0 for x in values)
        and abs(sum(values) - 1.0) <= 1e-9
    ):
        raise ValueError(f"{name}: expected {size} positive numbers summing to 1, got {values!r}")
    return tuple(float(x) for x in values)


def check_generator(name: str, value: object) -> np.random.Generator:
    """``value``; ValueError naming ``name`` unless it is a ``numpy.random.Generator``."""
    if not isinstance(value, np.random.Generator):
        raise ValueError(f"{name}: expected a numpy.random.Generator, got {value!r}")
    return value


def check_random_state(name: str, value: object) -> np.random.Generator:
    """The generator ``value`` stands for as a :data:`RandomState`: a seed starts a new
    one, a generator is used as it is, None draws fresh entropy; ValueError naming
    ``name`` for anything else. The global NumPy random state is never touched."""
    if isinstance(value, np.random.Generator):
        return value
    if value is None:
        return np.random.default_rng()
    if not is_int(value) or value < 0:  # type: ignore[operator]
        raise ValueError(
            f"{name}: expected an int >= 0, a numpy.random.Generator or None, got {value!r}"
        )
    return np.random.default_rng(int(value))  # type: ignore[call-overload]


def _bounds(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f" in {minimum}..{maximum}"
    if minimum is not None:
        return f" >= {minimum}"
    if maximum is not None:
        return f" <= {maximum}"
    return ""
