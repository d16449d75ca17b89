"""The transduction tasks: ids, the batch layout (teacher forcing, ignored positions,
padding), the reference targets, lengths, determinism, the metrics and argument checks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.errors import UserError
from memrnn.languages.grammars import GENDERLESS_TO_GENDERED, SVO_TO_SOV, svo_to_sov
from memrnn.languages.itg import sample_pair
from memrnn.tasks.base import TaskBatch
from memrnn.tasks.transduction import (
    TASKS,
    TransductionBatch,
    TransductionTask,
    sample_batch,
)

IGNORE = -100


def test_ids_of_a_symbol_task() -> None:
    task = TransductionTask("copy")
    assert (task.source_vocab, task.target_vocab) == (128, 128)
    assert (task.bos, task.sep, task.input_eos, task.eos) == (256, 257, 258, 128)
    assert (task.input_size, task.output_size) == (259, 129)
    small = TransductionTask("reversal", vocab_size=4)
    assert (small.bos, small.sep, small.input_eos, small.eos) == (8, 9, 10, 4)
    assert small.source_words == small.target_words == ("0", "1", "2", "3")


def test_ids_of_the_itg_tasks() -> None:
    svo = TransductionTask("svo_sov")
    assert svo.grammar is SVO_TO_SOV
    assert svo.source_words == SVO_TO_SOV.source_words
    assert (svo.source_vocab, svo.target_vocab) == (127, 127)
    conj = TransductionTask("conjugation")
    assert conj.grammar is GENDERLESS_TO_GENDERED
    assert (conj.source_vocab, conj.target_vocab) == (132, 135)
    assert (conj.input_size, conj.output_size) == (132 + 135 + 3, 136)
    assert conj.eos == 135
    small = TransductionTask("svo_sov", grammar=svo_to_sov(2))
    assert small.source_vocab == 7


def test_worked_example_of_the_docstring() -> None:
    task = TransductionTask("copy", vocab_size=4)
    b = task.make_batch([([2, 0], [2, 0]), ([1], [1])])
    assert b.inputs.tolist() == [[8, 2, 0, 9, 6, 4, 10], [8, 1, 9, 5, 10, 10, 10]]
    assert b.targets.tolist() == [
        [IGNORE, IGNORE, IGNORE, 2, 0, 4, IGNORE],
        [IGNORE, IGNORE, 1, 4, IGNORE, IGNORE, IGNORE],
    ]
    assert b.source_lengths.tolist() == [2, 1]
    assert b.target_lengths.tolist() == [2, 1]
    assert b.gold() == [[2, 0, 4], [1, 4]]
    for t in (b.inputs, b.targets, b.source_lengths, b.target_lengths):
        assert t.dtype == torch.int64


def test_separate_lengths_and_vocabularies() -> None:
    # Source and target lengths and id spaces differ: target id 2 is input id S + 2.
    task = TransductionTask("conjugation")
    b = task.make_batch([([0, 1, 2], [2, 134])])
    s = task.source_vocab
    assert b.inputs.tolist() == [[task.bos, 0, 1, 2, task.sep, s + 2, s + 134, task.input_eos]]
    assert b.targets.tolist() == [[IGNORE] * 4 + [2, 134, task.eos, IGNORE]]


def _check_layout(task: TransductionTask, batch: TransductionBatch) -> None:
    """Every row: ``<s> source ||| target </s>``, padding, scored positions, shifting."""
    s = task.source_vocab
    width = batch.inputs.shape[1]
    assert width == int((batch.source_lengths + batch.target_lengths).max()) + 3
    for row, (inputs, targets) in enumerate(zip(batch.inputs, batch.targets, strict=True)):
        length, m = int(batch.source_lengths[row]), int(batch.target_lengths[row])
        end = length + m + 3
        assert inputs[0] == task.bos
        assert all(0 <= int(x) < s for x in inputs[1 : length + 1])
        assert inputs[length + 1] == task.sep
        fed = inputs[length + 2 : length + 2 + m]
        assert all(s <= int(x) < s + task.target_vocab for x in fed)
        assert (inputs[end - 1 :] == task.input_eos).all()  # the final </s>, then padding
        scored = (targets != IGNORE).nonzero().flatten().tolist()
        assert scored == list(range(length + 1, length + m + 2))
        assert targets[length + m + 1] == task.eos
        # Teacher forcing: what is due at step i is the input at step i + 1.
        due = targets[length + 1 : length + m + 1]
        torch.testing.assert_close(task.to_input(due), inputs[length + 2 : end - 1])
        assert end == width or (targets[end:] == IGNORE).all()


@pytest.mark.parametrize("name", TASKS)
def test_sampled_batches_follow_the_layout(name: str) -> None:
    task = TransductionTask(name)
    batch = sample_batch(task, np.random.default_rng(0), 10, 8, 30)
    assert batch.inputs.shape[0] == 10
    _check_layout(task, batch)
    assert all(8 <= n <= 30 for n in batch.source_lengths.tolist())
    scored = int((batch.targets != IGNORE).sum())
    assert scored == int(batch.target_lengths.sum()) + 10
    if task.grammar is None:
        assert batch.target_lengths.tolist() == batch.source_lengths.tolist()


def test_references() -> None:
    source = [5, 1, 7, 7, 0, 3]
    assert TransductionTask("copy", 8).reference(source) == [5, 1, 7, 7, 0, 3]
    assert TransductionTask("reversal", 8).reference(source) == [3, 0, 7, 7, 1, 5]
    assert TransductionTask("bigram_flip", 8).reference(source) == [1, 5, 7, 7, 3, 0]
    assert TransductionTask("bigram_flip", 8).reference([]) == []
    with pytest.raises(ValueError, match="even length"):
        TransductionTask("bigram_flip", 8).reference([1, 2, 3])
    with pytest.raises(ValueError, match=r"source: symbol ids must lie in 0 \.\. 7"):
        TransductionTask("copy", 8).reference([8])
    with pytest.raises(ValueError, match="reference: svo_sov pairs come from its grammar"):
        TransductionTask("svo_sov").reference([1, 2, 3])


@pytest.mark.parametrize("name", ["copy", "reversal", "bigram_flip"])
def test_symbol_pairs_match_the_reference_and_cover_the_lengths(name: str) -> None:
    task = TransductionTask(name, vocab_size=5)
    pairs = task.sample_pairs(np.random.default_rng(1), 300, 3, 9)
    lengths = {len(s) for s, _ in pairs}
    want = {4, 6, 8} if name == "bigram_flip" else set(range(3, 10))
    assert lengths == want
    for source, target in pairs:
        assert target == task.reference(source)
    assert {x for s, _ in pairs for x in s} == set(range(5))


def test_bigram_flip_needs_an_even_length() -> None:
    task = TransductionTask("bigram_flip", vocab_size=3)
    pairs = task.sample_pairs(np.random.default_rng(0), 20, 7, 9)
    assert {len(s) for s, _ in pairs} == {8}
    with pytest.raises(ValueError, match=r"bigram_flip needs an even length in \[9, 9\]"):
        task.sample_pairs(np.random.default_rng(0), 1, 9, 9)


@pytest.mark.parametrize("name", ["svo_sov", "conjugation"])
def test_itg_pairs_are_the_grammars(name: str) -> None:
    task = TransductionTask(name)
    assert task.grammar is not None
    pairs = task.sample_pairs(np.random.default_rng(7), 5, 8, 20)
    rng = np.random.default_rng(7)
    for source, target in pairs:
        words = sample_pair(task.grammar, rng, 8, 20)
        assert [task.source_words[i] for i in source] == words[0]
        assert [task.target_words[i] for i in target] == words[1]
        assert 8 <= len(source) <= 20


@pytest.mark.parametrize("name", TASKS)
def test_deterministic_given_the_seed(name: str) -> None:
    task = TransductionTask(name)
    first = sample_batch(task, np.random.default_rng(5), 4, 8, 16)
    again = sample_batch(task, np.random.default_rng(5), 4, 8, 16)
    other = sample_batch(task, np.random.default_rng(6), 4, 8, 16)
    assert torch.equal(first.inputs, again.inputs)
    assert torch.equal(first.targets, again.targets)
    assert not torch.equal(first.inputs[:, :5], other.inputs[:, :5])


@pytest.mark.parametrize("name", TASKS)
def test_sample_batch_is_make_batch_of_sample_pairs(name: str) -> None:
    # sample_batch skips make_batch's check of the ids it drew itself: the same batch
    task = (
        TransductionTask(name) if name in ("svo_sov", "conjugation") else TransductionTask(name, 16)
    )
    for low, high in [(6, 6), (2, 12), (8, 40)]:
        drawn, literal = np.random.default_rng(3), np.random.default_rng(3)
        fast = sample_batch(task, drawn, 16, low, high)
        slow = task.make_batch(task.sample_pairs(literal, 16, low, high))
        for field in ("inputs", "targets", "source_lengths", "target_lengths"):
            assert torch.equal(getattr(fast, field), getattr(slow, field)), field
            assert getattr(fast, field).dtype == getattr(slow, field).dtype == torch.int64
        assert drawn.bit_generator.state == literal.bit_generator.state


def test_the_contracts_batch_is_sample_batchs() -> None:
    task = TransductionTask("svo_sov")
    batch = task.sample_batch(np.random.default_rng(5), 4, 8, 16)
    plain = sample_batch(task, np.random.default_rng(5), 4, 8, 16)
    assert torch.equal(batch.inputs, plain.inputs) and torch.equal(batch.targets, plain.targets)
    assert torch.equal(batch.mask, plain.targets != IGNORE)
    assert (task.train_lengths, task.test_lengths) == ((8, 64), (65, 128))


def test_teacher_forced_coarse_and_fine() -> None:
    task = TransductionTask("copy", vocab_size=4)
    pairs = [([2, 0], [2, 0]), ([1], [1])]
    b = task.make_batch(pairs)
    batch = TaskBatch(b.inputs, b.targets, b.targets != IGNORE)
    logits = torch.nn.functional.one_hot(b.targets.clamp(min=0), task.output_size).float()
    logits[0, 4] = logits[0, 4].roll(1)  # row 0: 2, then wrong at 0, then </s>
    scores = task.score(logits, batch)
    assert scores == {"accuracy": 0.5, "coarse": 0.5, "fine": (1 / 3 + 1) / 2}


def test_to_input() -> None:
    task = TransductionTask("copy", vocab_size=4)
    assert task.to_input(torch.tensor([[0, 3, 4]])).tolist() == [[4, 7, 10]]
    with pytest.raises(ValueError, match=r"output_ids: ids must lie in 0 \.\. 4"):
        task.to_input(torch.tensor([5]))
    with pytest.raises(ValueError, match="output_ids: expected an integer tensor"):
        task.to_input(torch.tensor([0.0]))


# --- argument checks ------------------------------------------------------------------


def test_bad_task_arguments() -> None:
    with pytest.raises(UserError, match="unknown transduction task 'sort'"):
        TransductionTask("sort")
    with pytest.raises(ValueError, match="vocab_size: svo_sov takes its vocabulary"):
        TransductionTask("svo_sov", vocab_size=10)
    with pytest.raises(ValueError, match="grammar: copy draws its sources uniformly"):
        TransductionTask("copy", grammar=SVO_TO_SOV)
    with pytest.raises(ValueError, match="grammar: expected an ITG"):
        TransductionTask("conjugation", grammar="grammar")  # type: ignore[arg-type]
    for bad in (0, 2.0, True):
        with pytest.raises(ValueError, match="vocab_size: expected an int >= 1"):
            TransductionTask("copy", vocab_size=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"batch_size": 0}, "batch_size"),
        ({"min_length": 0}, "min_length"),
        ({"max_length": 2.5}, "max_length"),
        ({"min_length": 9, "max_length": 8}, "min_length 9 is greater than max_length 8"),
        ({"rng": 0}, "rng"),
        ({"task": "copy"}, "task"),
    ],
)
def test_bad_sampling_arguments(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {
        "task": TransductionTask("copy", 4),
        "rng": np.random.default_rng(0),
        "batch_size": 2,
        "min_length": 1,
        "max_length": 8,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        sample_batch(**args)  # type: ignore[arg-type]


def test_bad_pairs() -> None:
    task = TransductionTask("copy", 4)
    with pytest.raises(ValueError, match="pairs: expected a non-empty sequence"):
        task.make_batch([])
    with pytest.raises(ValueError, match=r"target: symbol ids must lie in 0 \.\. 3"):
        task.make_batch([([1], [4])])
    with pytest.raises(ValueError, match=r"source: symbol ids must lie in 0 \.\. 3"):
        task.make_batch([([-1], [1])])
    with pytest.raises(ValueError, match="n: expected an int >= 0"):
        task.sample_pairs(np.random.default_rng(0), -1, 1, 2)
    assert task.sample_pairs(np.random.default_rng(0), 0, 1, 2) == []
