"""A literal reading of Definition 1, and random near-Dyck strings, for the Dyck tests."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import strategies as st


def direct(tokens: Sequence[int], k: int, m: int) -> bool:
    """Definition 1 read literally: balanced, depth never above m, one end symbol, last."""
    stack: list[int] = []
    for t, token in enumerate(tokens):
        if token == 2 * k:
            return not stack and t == len(tokens) - 1
        if token < k:
            stack.append(token)
            if len(stack) > m:
                return False
        elif not stack or stack.pop() != token - k:
            return False
    return False  # no end symbol


def brackets(k: int, n: int) -> itertools.product[tuple[int, ...]]:
    return itertools.product(range(2 * k), repeat=n)


@st.composite
def near_dyck(draw: st.DrawFn) -> tuple[int, int, list[int]]:
    """Mostly well-formed strings that may go one deeper than m, with some random tokens."""
    k, m = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    stack: list[int] = []
    tokens: list[int] = []
    for _ in range(draw(st.integers(0, 30))):
        action = draw(st.sampled_from(["push", "pop", "pop", "noise"]))
        if action == "push" and len(stack) <= m:
            stack.append(draw(st.integers(0, k - 1)))
            tokens.append(stack[-1])
        elif action == "pop" and stack:
            tokens.append(stack.pop() + k)
        elif action == "noise":
            tokens.append(draw(st.integers(0, 2 * k)))
    tokens.extend(b + k for b in reversed(stack))
    if draw(st.booleans()):
        tokens.append(2 * k)
    return k, m, tokens
