"""Greedy decoding and scoring of text pairs with any model on the task contract."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import Tensor

from memrnn.errors import UserError
from memrnn.models import build_model_for
from memrnn.tasks.text_pairs import TextPairsTask, read_pairs
from memrnn.tasks.text_pairs_decoding import decode_tokens, greedy_decode, score_pairs


def _task(tmp_path: Path, text: str = "a b\tb a\nb\tb\nc a b\tb a c\n") -> TextPairsTask:
    path = tmp_path / "pairs.tsv"
    path.write_text(text)
    return TextPairsTask.from_file(path)


class Reverser:
    """A causal stand-in for a trained model: reversal, read off the inputs so far."""

    def __init__(self, task: TextPairsTask) -> None:
        self.task = task

    def __call__(self, inputs: Tensor) -> Tensor:
        task, logits = self.task, torch.zeros(*inputs.shape, self.task.output_size)
        for b, row in enumerate(inputs.tolist()):
            if task.sep not in row:
                continue
            sep = row.index(task.sep)
            source = row[1:sep]
            for t in range(sep, len(row)):
                k = t - sep  # target tokens emitted so far
                wanted = source[::-1][k] if k < len(source) else task.eos
                logits[b, t, wanted] = 1.0
        return logits


def test_a_perfect_model_decodes_and_scores_perfectly(tmp_path: Path) -> None:
    task = _task(tmp_path)
    model = Reverser(task)
    sources = [(("a", "b", "c"), "line 1"), (("b",), "line 2")]
    assert decode_tokens(task, model, sources) == [("c", "b", "a"), ("b",)]
    scores = score_pairs(task, model, task.pairs)
    assert scores["sequence_accuracy"] == scores["token_accuracy"] == 1.0


def test_scores_count_tokens_at_their_position(tmp_path: Path) -> None:
    task = _task(tmp_path)
    path = tmp_path / "wrong.tsv"
    path.write_text("a b\tb a\nb\ta\n")  # right, then a 1-token target decoded as "b"
    scores = score_pairs(task, Reverser(task), read_pairs(path))
    assert scores["sequence_accuracy"] == 0.5
    assert scores["token_accuracy"] == 4 / 5  # b a </s> right, then "a" wrong, </s> right


def test_decoding_stops_at_its_limit_without_eos(tmp_path: Path) -> None:
    task = _task(tmp_path)

    def babbler(inputs: Tensor) -> Tensor:  # always the first target token, never </s>
        logits = torch.zeros(*inputs.shape, task.output_size)
        logits[..., 0] = 1.0
        return logits

    (row,) = greedy_decode(task, babbler, [[0]])
    assert row == [0] * (task.longest_target + 1)  # max(2 L, longest target) + 1 ids
    (longer,) = greedy_decode(task, babbler, [[0, 1, 2, 0]])
    assert len(longer) == 2 * 4 + 1


def test_a_row_decodes_the_same_alone_and_in_a_batch(tmp_path: Path) -> None:
    task = _task(tmp_path)
    torch.manual_seed(0)
    model = build_model_for("stack_lstm", task, hidden_size=6).eval()
    sources = [[0, 1], [2, 0, 1, 1], [1]]
    together = greedy_decode(task, model, sources)
    alone = [greedy_decode(task, model, [s])[0] for s in sources]
    assert together == alone
    assert greedy_decode(task, model, sources, chunk=1) == together


def test_unknown_tokens_in_sources_are_named(tmp_path: Path) -> None:
    task = _task(tmp_path)
    with pytest.raises(UserError, match=r"in.txt, line 7: unknown source token 'q'"):
        decode_tokens(task, Reverser(task), [(("a", "q"), "in.txt, line 7")])
