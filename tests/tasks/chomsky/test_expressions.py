"""Random bracketed expressions (Delétang et al. 2023, the generator of Modular
Arithmetic with brackets): exactly the length asked, exactly the authors' grammar, the
value mod m of what they say, and the authors' split and operator distributions."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.tasks.chomsky.expressions import random_expressions
from tests.tasks.chomsky.support import parse_expression

SYMBOLS = "+-*()"


def _text(row: np.ndarray, modulus: int) -> list[str]:
    return [str(s) if s < modulus else SYMBOLS[s - modulus] for s in row]


@pytest.mark.parametrize("times", [True, False])
@pytest.mark.parametrize("modulus", [5, 3])
def test_each_expression_parses_to_its_value(times: bool, modulus: int) -> None:
    rng = np.random.default_rng(1)
    for length in [*range(1, 45), 120, 500]:
        symbols, values = random_expressions(rng, 16, length, modulus, times)
        assert symbols.shape == (16, length) and values.shape == (16,)
        for row, value in zip(symbols, values, strict=True):
            text = _text(row, modulus)
            assert parse_expression(text) % modulus == value
            if length < 300:  # Python's own reading, as an independent check
                assert eval("".join(text)) % modulus == value
            if not times:
                assert "*" not in text


def test_the_shortest_expressions_are_the_authors_leaves() -> None:
    rng = np.random.default_rng(0)
    shapes = {1: "d", 2: "-d", 3: "(d)", 4: "(-d)", 5: "(dod)"}
    for length, shape in shapes.items():
        symbols, _ = random_expressions(rng, 50, length, 5, True)
        for row in symbols:
            text = "".join("d" if c.isdigit() else c for c in _text(row, 5))
            if length == 5:  # (d op d)
                text = text[:2] + ("o" if text[2] in "+-*" else "?") + text[3:]
            assert text == shape


def test_the_root_splits_uniformly_and_the_operators_too() -> None:
    # length 12: the left operand has 1 .. 8 symbols, each about 1/8 of the time
    symbols, _ = random_expressions(np.random.default_rng(2), 8000, 12, 5, True)
    lefts = []
    for row in symbols:
        text = _text(row, 5)
        depth = 0
        for i, c in enumerate(text[1:-1], start=1):
            depth += (c == "(") - (c == ")")
            if depth == 0 and c in "+-*" and i > 1 and text[i - 1] not in "(+-*":
                lefts.append((i - 1, c))
                break
    assert len(lefts) == 8000
    sizes = np.bincount([size for size, _ in lefts], minlength=9)[1:]
    assert sizes.min() > 850 and sizes.max() < 1150  # 1000 expected each
    ops = np.unique([op for _, op in lefts], return_counts=True)[1]
    assert len(ops) == 3 and ops.min() > 2450  # 2667 expected each
