"""The metrics of Grefenstette et al. (2015, section 4) for transduction.

Both score output-id sequences that include the final ``</s>``: ``coarse`` is the fraction
of sequences right up to and including ``</s>``; ``fine`` the mean over sequences of
(symbols right before the first error) / (gold length including ``</s>``).
A prediction shorter or longer than gold is wrong from the first position where the two
differ; what follows gold's ``</s>`` is not looked at (decoding stops there).
``cut_at_eos`` trims predictions of a fixed number of steps at their first ``</s>``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from torch import Tensor


def cut_at_eos(
    predicted: Sequence[Sequence[int]] | Tensor | np.ndarray, eos: int
) -> list[list[int]]:
    """Each predicted id sequence up to and including its first ``eos`` (whole if none).

    ``predicted`` is (B, T) ids, e.g. greedy predictions of a fixed number of steps.
    """
    out = []
    for row in _rows("predicted", predicted):
        out.append(row[: row.index(eos) + 1] if eos in row else row)
    return out


def coarse(
    predicted: Sequence[Sequence[int]] | Tensor | np.ndarray,
    gold: Sequence[Sequence[int]] | Tensor | np.ndarray,
) -> float:
    """The fraction of sequences predicted right up to and including gold's ``</s>``."""
    pairs = _paired(predicted, gold)
    return sum(_correct_prefix(p, g) == len(g) for p, g in pairs) / len(pairs)


def fine(
    predicted: Sequence[Sequence[int]] | Tensor | np.ndarray,
    gold: Sequence[Sequence[int]] | Tensor | np.ndarray,
) -> float:
    """The mean over sequences of (symbols right before the first error) / len(gold), gold
    including its ``</s>``."""
    pairs = _paired(predicted, gold)
    return sum(_correct_prefix(p, g) / len(g) for p, g in pairs) / len(pairs)


def _correct_prefix(predicted: list[int], gold: list[int]) -> int:
    """How many of gold's symbols are predicted before the first difference."""
    n = 0
    for p, g in zip(predicted, gold, strict=False):  # a prediction may be shorter
        if p != g:
            break
        n += 1
    return n


def _paired(predicted: object, gold: object) -> list[tuple[list[int], list[int]]]:
    p, g = _rows("predicted", predicted), _rows("gold", gold)
    if len(p) != len(g):
        raise ValueError(f"predicted has {len(p)} sequences but gold has {len(g)}")
    if not g:
        raise ValueError("gold: no sequences to score")
    if any(not row for row in g):
        raise ValueError("gold: every sequence needs at least its </s>")
    return list(zip(p, g, strict=True))


def _rows(name: str, value: object) -> list[list[int]]:
    """Id sequences as lists of ints, from a sequence of sequences or a 2-D array."""
    if isinstance(value, (Tensor, np.ndarray)):
        if value.ndim != 2:
            raise ValueError(f"{name}: expected a 2-D array of ids, got {value.ndim}-D")
        value = value.tolist()
    if not isinstance(value, Sequence) or not all(
        isinstance(row, (Sequence, Tensor, np.ndarray)) for row in value
    ):
        raise ValueError(f"{name}: expected a sequence of id sequences")
    return [[int(x) for x in row] for row in value]
