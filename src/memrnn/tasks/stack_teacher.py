"""The stack behaviour a stack machine is taught with (Paassen, Schulz, Hammer 2021,
Algorithm 4): per input step, the pops and pushes applied before the step's symbol is
shifted, whether it is shifted, and the desired output.

A task that can say how a stack should be driven (the LR(1) languages by Algorithm 1,
the copy tasks by a stack heuristic) gives one ``StackTeacher`` per sequence; the
reservoir and deep stack machines learn their classifiers from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NO_PUSH = -1  # the pushed nonterminal of an action that only pops (c_push's "nothing")


@dataclass(frozen=True)
class StackTeacher:
    """The desired stack behaviour for one input sequence of T symbols (Algorithm 4).

    Attributes:
        actions: T + 1 lists, one per step (the last for the end of the input), of the
            (pop count, pushed nonterminal index or NO_PUSH) pairs applied before the
            shift; the closing (0, NO_PUSH) is implied and must not be listed.
        shift: (T + 1,) 1 where the input symbol is pushed after the actions.
        outputs: (T + 1, L) the desired outputs y_1 .. y_{T+1}.
    """

    actions: Sequence[Sequence[tuple[int, int]]]
    shift: np.ndarray
    outputs: np.ndarray
