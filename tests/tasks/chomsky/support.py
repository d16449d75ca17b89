"""What the tests of the Delétang et al. (2023) tasks share: a batch's rows as the
string and the scored answer, and a search for an authors' example among samples."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from memrnn.tasks import TaskBatch
from memrnn.tasks.chomsky import ChomskyTask


def rows(task: ChomskyTask, batch: TaskBatch) -> Iterator[tuple[list[int], list[int]]]:
    """Each row's input string (the steps before the first blank) and its scored answer."""
    for inputs, targets, mask in zip(batch.inputs, batch.targets, batch.mask, strict=True):
        length = int((inputs != task.blank).sum())
        yield inputs[:length].tolist(), targets[mask].tolist()


def sampled(
    task: ChomskyTask, length: int, count: int = 64, seed: int = 0
) -> list[tuple[list[int], list[int]]]:
    """``count`` rows of one batch of ``length``."""
    batch = task.sample_batch(np.random.default_rng(seed), count, length, length)
    return list(rows(task, batch))


def answer_to(task: ChomskyTask, string: Sequence[int], count: int = 4000) -> list[int]:
    """The scored answer the task gives to ``string``, found among ``count`` samples of its
    length (seeded, so found or not found the same way every run)."""
    for row, answer in sampled(task, len(string), count, seed=len(string)):
        if row == list(string):
            return answer
    raise AssertionError(f"{string} not among {count} samples of length {len(string)}")


def digits(text: str) -> list[int]:
    """'0110' -> [0, 1, 1, 0]."""
    return [int(c) for c in text]


def parse_expression(symbols: Sequence[str], x: int | None = None) -> int:
    """The value of a whole expression of the authors' grammar, E := d | -d | (d) | (-d)
    | (E op E), from its symbols ('0'..'9', '+', '-', '*', '(', ')', 'x' standing for
    ``x``); AssertionError unless the symbols are exactly one such expression."""
    value, end = _parse(list(symbols), 0, x)
    assert end == len(symbols), f"trailing symbols after {end}: {symbols}"
    return value


def _parse(s: list[str], i: int, x: int | None) -> tuple[int, int]:
    def residue(j: int) -> int:
        assert s[j].isdigit() or s[j] == "x", f"a residue expected at {j}: {s}"
        if s[j] == "x":
            assert x is not None
            return x
        return int(s[j])

    if s[i] == "-":
        return -residue(i + 1), i + 2
    if s[i] != "(":
        return residue(i), i + 1
    if s[i + 2 : i + 3] == [")"]:
        return residue(i + 1), i + 3
    if s[i + 1] == "-" and s[i + 3 : i + 4] == [")"]:
        return -residue(i + 2), i + 4
    left, j = _parse(s, i + 1, x)
    op = s[j]
    right, k = _parse(s, j + 1, x)
    assert s[k] == ")", f"')' expected at {k}: {s}"
    value = {"+": left + right, "-": left - right, "*": left * right}[op]
    return value, k + 1
