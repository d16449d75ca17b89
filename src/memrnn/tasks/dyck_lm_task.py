"""Dyck-(k,m) next-token prediction (Hewitt et al. 2020, section 8 and Appendix H) on the
Task contract.

A sequence is one string of Appendix H's distribution (:func:`memrnn.languages.dyck.
sample_string`), end symbol included; a length counts its tokens. The inputs are a start
symbol and the string but its last token, the targets the string: the output at step t is
the distribution of token t given the tokens before it, as the authors' language model
reads a start symbol first. Token ids: open brackets 0 .. k-1, close brackets k .. 2k-1,
the end symbol 2k, and the start symbol 2k + 1 (an input only). Padding inputs repeat the
end symbol. The task's metric is the bracket-closing metric of Appendix H.4
(:func:`~memrnn.tasks.dyck_lm.closing_scores`, the mean of p_l over the distances l that
the batch holds).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from memrnn.languages.dyck import length_ranges, sample_string
from memrnn.tasks.base import IGNORE_INDEX, Task, TaskBatch
from memrnn.tasks.dyck_lm import closing_scores
from memrnn.tasks.registry import register_task
from memrnn.validation import check_int, is_int


@register_task("dyck_lm")
class DyckLMTask(Task):
    """Next-token prediction on Dyck-(k,m).

    Args:
        k: bracket types.
        m: the bound on unclosed brackets.
        train_lengths, test_lengths: (min, max) string lengths; default Table 2's, which
            it gives for m = 3 and m = 5 only.

    Raises:
        ValueError: naming a bad argument; ``m`` other than 3 or 5 without both ranges.
    """

    input_kind = "tokens"
    output_kind = "classes"

    def __init__(
        self,
        k: int = 2,
        m: int = 3,
        train_lengths: tuple[int, int] | None = None,
        test_lengths: tuple[int, int] | None = None,
    ) -> None:
        self.k, self.m = check_int("k", k, 1), check_int("m", m, 1)
        if train_lengths is None or test_lengths is None:
            table = length_ranges(self.m)
            train_lengths = table[0] if train_lengths is None else train_lengths
            test_lengths = table[1] if test_lengths is None else test_lengths
        self.train_lengths = _check_range("train_lengths", train_lengths)
        self.test_lengths = _check_range("test_lengths", test_lengths)

    def __repr__(self) -> str:
        return f"DyckLMTask(k={self.k}, m={self.m})"

    @property
    def start(self) -> int:
        """The input id of the start symbol: 2k + 1."""
        return 2 * self.k + 1

    @property
    def input_size(self) -> int:
        """2k + 2: the brackets, the end symbol and the start symbol."""
        return 2 * self.k + 2

    @property
    def output_size(self) -> int:
        """2k + 1: the brackets and the end symbol."""
        return 2 * self.k + 1

    def _sample(
        self, rng: np.random.Generator, batch_size: int, min_length: int, max_length: int
    ) -> TaskBatch:
        strings = [
            sample_string(rng, self.k, self.m, min_length, max_length) for _ in range(batch_size)
        ]
        steps = max(len(s) for s in strings)
        inputs = np.full((batch_size, steps), 2 * self.k, dtype=np.int64)
        targets = np.full((batch_size, steps), IGNORE_INDEX, dtype=np.int64)
        for b, string in enumerate(strings):
            inputs[b, 0] = self.start
            inputs[b, 1 : len(string)] = string[:-1]
            targets[b, : len(string)] = string
        return TaskBatch.of_class_targets(torch.from_numpy(inputs), torch.from_numpy(targets))

    def _metrics(self, outputs: Tensor, batch: TaskBatch) -> dict[str, float]:
        probs = torch.softmax(outputs, dim=-1).double().cpu().numpy()
        mask, targets = batch.mask.cpu(), batch.targets.cpu()
        strings = [targets[b][mask[b]].numpy() for b in range(len(mask))]
        return {"bracket_closing": closing_scores(probs, strings, self.k).mean}


def _check_range(name: str, value: object) -> tuple[int, int]:
    if (
        not isinstance(value, tuple)
        or len(value) != 2
        or not all(is_int(v) and v >= 1 for v in value)
        or value[0] > value[1]
    ):
        raise ValueError(f"{name}: expected (min, max) ints with 1 <= min <= max, got {value!r}")
    return int(value[0]), int(value[1])
