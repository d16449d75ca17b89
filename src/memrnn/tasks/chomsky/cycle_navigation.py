"""Cycle Navigation (Delétang et al. 2023, Appendix A; regular): where a walk on a cycle
of 5 states ends.

As the authors' ``tasks/regular/cycle_navigation.py``: the string is L actions drawn
uniformly from {0, 1, 2}, meaning a step of -1 (left), 0 (stay) and +1 (right); the walk
starts at state 0 and the class is its final state, (sum of the steps) mod 5. (The
authors' docstring calls 0 "stay", but their code, followed here, moves by id - 1.) One
answer step after the string (:mod:`memrnn.tasks.chomsky.layout`).

Ids: input actions 0 (left), 1 (stay), 2 (right) and the blank 3; output classes the
states 0 .. 4.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.chomsky.layout import ChomskyTask, Strings
from memrnn.tasks.registry import register_task

CYCLE_LENGTH = 5  # the paper's


@register_task("cycle_navigation")
class CycleNavigationTask(ChomskyTask):
    """The final state of a walk of left, stay and right steps on a 5-cycle."""

    chomsky_level = "regular"

    def __repr__(self) -> str:
        return "CycleNavigationTask()"

    @property
    def alphabet_size(self) -> int:
        """3: left, stay, right."""
        return 3

    @property
    def output_size(self) -> int:
        """5: the states of the cycle."""
        return CYCLE_LENGTH

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        actions = rng.integers(0, 3, size=(batch_size, length), dtype=np.int64)
        return Strings.all_scored(actions, (actions - 1).sum(axis=1) % CYCLE_LENGTH)
