"""The copy and repeat-copy tasks of Paassen et al. (2021, section 4), with the stack
heuristics that give the reservoir stack machine its teacher actions.

Inputs have 8 bit channels and one end-of-sequence channel, which is -1 while the bits
are read, +1 at an end token, and 0 while recalling. After each end token the bits are
written out again, one vector per step; the output is zero everywhere else.

Stack heuristic (the paper's, with its unstated details fixed here so that the numbers
work out): every input is shifted onto the stack except end tokens. At the first token,
the placeholder nonterminal S is pushed until the stack holds ``depth`` (20) symbols, so
that during recall the bit vector due at each step is exactly the ``depth``-th symbol
from the top: the output is read off one fixed stack position. At every later token,
the symbols shifted since the previous token are popped, which restores that stack.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BITS = 8
PLACEHOLDER = 0  # the index of S among the nonterminals
NO_PUSH = -1  # an action that only pops (the RSM's NO_PUSH)


@dataclass(frozen=True)
class CopyExample:
    """One copy or repeat-copy sequence and its teacher for the RSM.

    Attributes:
        inputs: (T, 9) bits and the end-of-sequence channel.
        outputs: (T, 8) the desired outputs at each input step.
        actions: T + 1 lists of (pop count, nonterminal index) per step.
        shift: (T + 1,) 1 where the step's input is shifted onto the stack.
        teacher_outputs: (T + 1, 8) ``outputs`` with a zero row for the end of input.
    """

    inputs: np.ndarray
    outputs: np.ndarray
    actions: list[list[tuple[int, int]]]
    shift: np.ndarray
    teacher_outputs: np.ndarray


def nonterminal_codes() -> np.ndarray:
    """(1, 9): the placeholder S, coded on the end-of-sequence channel with value 2 so
    that it differs from every input vector."""
    code = np.zeros((1, BITS + 1))
    code[0, BITS] = 2.0
    return code


def copy_example(
    rng: np.random.Generator, length: int, repeats: int = 1, depth: int = 20
) -> CopyExample:
    """A sequence of ``length`` random 8-bit vectors copied ``repeats`` times."""
    if not 1 <= length <= depth:
        raise ValueError(f"length: must lie in 1 .. depth = {depth}, got {length}")
    if repeats < 1:
        raise ValueError(f"repeats: must be at least 1, got {repeats}")
    bits = rng.integers(0, 2, size=(length, BITS)).astype(np.float64)
    steps = length + repeats * (length + 1)
    inputs = np.zeros((steps, BITS + 1))
    outputs = np.zeros((steps, BITS))
    inputs[:length, :BITS] = bits
    inputs[:length, BITS] = -1.0
    actions: list[list[tuple[int, int]]] = [[] for _ in range(steps + 1)]
    shift = np.ones(steps + 1)
    for r in range(repeats):
        token = length + r * (length + 1)
        inputs[token, BITS] = 1.0
        outputs[token + 1 : token + 1 + length] = bits
        shift[token] = 0.0
        if r == 0:
            actions[token] = [(0, PLACEHOLDER)] * (depth - length)
        else:
            actions[token] = [(length, NO_PUSH)]  # the recall inputs shifted since
    teacher_outputs = np.vstack([outputs, np.zeros((1, BITS))])
    return CopyExample(inputs, outputs, actions, shift, teacher_outputs)
