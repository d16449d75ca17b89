"""Stack Manipulation (Delétang et al. 2023, Appendix A; deterministic context-free): the
stack left after a list of pushes and pops.

As the authors' ``tasks/dcf/stack_manipulation.py``: for L >= 2, the string is a stack
of k bits given bottom to top, k uniform in 1 .. L-1, then L - k actions drawn uniformly
from POP, PUSH 0 and PUSH 1 (a POP on the empty stack does nothing); for L = 1, a stack
of one bit and no action. The answer is the final stack top to bottom, then the
termination token, then zeros up to L + 1 symbols (0 1 1 0 PUSH-1 POP POP ->
1 1 0 END 0 0 0 0). L + 1 answer steps after the string, scored up to the termination
token (:mod:`memrnn.tasks.chomsky.layout`).

Ids: input bits 0, 1, then POP 2, PUSH 0 3, PUSH 1 4, the blank 5; output classes the
bits 0, 1 and the termination token 2.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task

POP, PUSH_0, PUSH_1 = 2, 3, 4
END = 2  # the output termination token


def final_stacks(strings: np.ndarray) -> np.ndarray:
    """(B, L + 1) the answers to (B, L) strings of bits and actions: each final stack
    top to bottom, ``END``, then zeros.

    Without a loop over steps: the height after step t is h_t = S_t - min(0, min_{s<=t}
    S_s), with S the running sum of +1 per push and -1 per pop (a pop on the empty
    stack does nothing), and a push at step t is on the final stack exactly when the
    height never falls below h_t afterwards.
    """
    length = strings.shape[1]
    push = strings != POP
    walk = np.cumsum(np.where(push, 1, -1), axis=1)
    height = walk - np.minimum(np.minimum.accumulate(walk, axis=1), 0)
    lowest_after = np.minimum.accumulate(height[:, ::-1], axis=1)[:, ::-1]
    kept = (push & (lowest_after >= height))[:, ::-1]  # latest first: top to bottom
    pushed = np.where(strings >= PUSH_0, strings - PUSH_0, strings)[:, ::-1]
    order = np.argsort(~kept, axis=1, kind="stable")  # the kept pushes, latest first
    size = kept.sum(axis=1, keepdims=True)
    slot = np.arange(length + 1)
    tops = np.take_along_axis(pushed, order, axis=1)
    out = np.where(slot == size, END, 0)
    out[:, :length] = np.where(slot[:length] < size, tops, out[:, :length])
    return out


@register_task("stack_manipulation")
class StackManipulationTask(ChomskyTask):
    """The final stack of an initial stack of bits and a list of POP and PUSH actions."""

    chomsky_level = "context-free"

    def __repr__(self) -> str:
        return "StackManipulationTask()"

    @property
    def alphabet_size(self) -> int:
        """5: bits 0, 1, POP, PUSH 0, PUSH 1."""
        return 5

    @property
    def output_size(self) -> int:
        """3: bits 0, 1 and the termination token."""
        return 3

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        if length == 1:
            strings = rng.integers(0, 2, size=(batch_size, 1), dtype=np.int64)
        else:
            stack_size = rng.integers(1, length, size=(batch_size, 1))
            bits = rng.integers(0, 2, size=(batch_size, length), dtype=np.int64)
            actions = rng.integers(POP, PUSH_1 + 1, size=(batch_size, length), dtype=np.int64)
            strings = np.where(np.arange(length) < stack_size, bits, actions)
        return Strings.up_to_termination(strings, final_stacks(strings), END)
