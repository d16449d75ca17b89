"""Copy and repeat copy of Paassen, Schulz, Hammer (2021, section 4), after Graves,
Wayne and Danihelka (2014), on the Task contract.

A length is the number of 8-bit vectors to copy; every input step is scored (the outputs
are zero except while recalling), and the teacher is the stack heuristic of
:mod:`memrnn.tasks.bit_copy`. The data are those of
:func:`~memrnn.tasks.rsm_benchmarks.copy_dataset`.
"""

from __future__ import annotations

import numpy as np

from memrnn.tasks.base import TaskBatch
from memrnn.tasks.bit_copy import BITS, nonterminal_codes
from memrnn.tasks.registry import register_task
from memrnn.tasks.rsm_benchmarks import (
    COPY_MAX_LENGTH,
    REPEAT_MAX_LENGTH,
    REPEATS,
    RSMBenchmarkTask,
    copy_dataset,
)
from memrnn.validation import check_int, check_int_range


@register_task("rsm_copy")
class BitCopyTask(RSMBenchmarkTask):
    """Copy: read 1 to 20 random bit vectors, then write them out again."""

    value_loss = "mse"  # the bits are regressed, as the paper's deep baselines are trained
    train_lengths = test_lengths = (1, COPY_MAX_LENGTH)
    repeats: tuple[int, int] | None = None  # copy writes once, with no repeats to draw

    def __repr__(self) -> str:
        return "BitCopyTask()"

    @property
    def input_size(self) -> int:
        """Eight bits and the end-of-sequence channel."""
        return BITS + 1

    @property
    def output_size(self) -> int:
        """Eight bits."""
        return BITS

    @property
    def nonterminals(self) -> np.ndarray:
        return nonterminal_codes()

    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        # The heuristic's stack holds 20 symbols below the recall (bit_copy.copy_example).
        check_int("max_length", max_length, maximum=COPY_MAX_LENGTH)
        lengths = (min_length, max_length)
        return copy_dataset(rng, batch_size, lengths, self.repeats).as_batch()


@register_task("rsm_repeat_copy")
class BitRepeatCopyTask(BitCopyTask):
    """Repeat copy: read 1 to 10 bit vectors, then write them out after each of several
    end tokens.

    Args:
        min_repeats, max_repeats: each sequence is repeated a number of times drawn
            uniformly from this range; the paper trains with 1 to 10 and tests with 1
            to 20 (the lengths stay those of training).
    """

    train_lengths = test_lengths = (1, REPEAT_MAX_LENGTH)

    def __init__(self, min_repeats: int = 1, max_repeats: int = REPEATS[False]) -> None:
        self.min_repeats, self.max_repeats = check_int_range(
            ("min_repeats", "max_repeats"), min_repeats, max_repeats, 1
        )
        self.repeats = (self.min_repeats, self.max_repeats)

    def __repr__(self) -> str:
        return f"BitRepeatCopyTask(min_repeats={self.min_repeats}, max_repeats={self.max_repeats})"
