"""The nine benchmark data sets of Paassen et al. (2021): lengths, alignment, teachers."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.languages.automata import automaton
from memrnn.languages.pcfg import sample_words
from memrnn.tasks.lr1_data import LR1Coding
from memrnn.tasks.rsm_benchmarks import (
    LANGUAGE_TASKS,
    TASKS,
    language_dataset,
    make_dataset,
    scored_rows,
)


@pytest.mark.parametrize("task", ["latch", *LANGUAGE_TASKS])
def test_language_lengths_and_targets(task: str) -> None:
    rng = np.random.default_rng(0)
    train = make_dataset(task, rng, 20, test=False)
    test = make_dataset(task, rng, 5, test=True)
    assert train.binary and len(train) == 20
    assert all(1 <= len(x) <= 50 for x in train.inputs)
    assert all(50 <= len(x) <= 100 for x in test.inputs)
    lr1 = automaton(task)
    coding_width = train.inputs[0].shape[1]
    assert train.nonterminals.shape[1] == coding_width
    for x, y, teacher in zip(train.inputs, train.targets, train.teachers, strict=True):
        assert y.shape == (len(x), 1)
        np.testing.assert_array_equal(scored_rows(task, teacher.outputs), y)
        # y_t = 1 iff the prefix of length t is in the language
        word = "".join(lr1_symbol(train, row) for row in x)
        want = [float(lr1.accepts(word[: t + 1])) for t in range(len(word))]
        assert y[:, 0].tolist() == want


def lr1_symbol(dataset, row: np.ndarray) -> str:  # type: ignore[no-untyped-def]
    from memrnn.tasks.lr1_data import LR1Coding

    coding = LR1Coding(automaton(dataset.task))
    return coding.terminals[int(np.argmax(row))]


def test_copy_lengths() -> None:
    rng = np.random.default_rng(1)
    data = make_dataset("copy", rng, 30, test=False)
    assert not data.binary
    for x, y, teacher in zip(data.inputs, data.targets, data.teachers, strict=True):
        n = int((x[:, -1] == -1).sum())
        assert 1 <= n <= 20 and len(x) == 2 * n + 1
        np.testing.assert_array_equal(scored_rows("copy", teacher.outputs), y)


def test_repeat_copy_repeats_more_in_testing() -> None:
    rng = np.random.default_rng(2)
    train = make_dataset("repeat_copy", rng, 200, test=False)
    test = make_dataset("repeat_copy", rng, 200, test=True)

    def tokens(x: np.ndarray) -> int:
        return int((x[:, -1] == 1).sum())

    assert max(tokens(x) for x in train.inputs) == 10
    assert max(tokens(x) for x in test.inputs) > 10
    assert max(tokens(x) for x in test.inputs) <= 20
    assert all(1 <= int((x[:, -1] == -1).sum()) <= 10 for x in train.inputs)


def test_same_seed_same_data() -> None:
    for task in TASKS:
        a = make_dataset(task, np.random.default_rng(5), 3, test=True)
        b = make_dataset(task, np.random.default_rng(5), 3, test=True)
        for x, y in zip(a.inputs, b.inputs, strict=True):
            np.testing.assert_array_equal(x, y)


def test_bad_arguments() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="task: expected one of latch"):
        make_dataset("dyck4", rng, 3, test=False)
    with pytest.raises(ValueError, match="n: expected an int >= 1, got 0"):
        make_dataset("copy", rng, 0, test=False)
    with pytest.raises(ValueError, match="task: expected one of"):
        scored_rows("nope", np.zeros((3, 1)))


@pytest.mark.parametrize("task", ["latch", "dyck2", "json"])
@pytest.mark.parametrize("lengths", [(1, 6), (17, 30)], ids=["kept", "long"])
def test_words_drawn_again_are_coded_as_the_first_time(task: str, lengths: tuple[int, int]) -> None:
    # short words recur from batch to batch, and each is coded once and shared
    coding = LR1Coding(automaton(task))
    for seed in range(3):
        words = sample_words(task, np.random.default_rng(seed), 12, *lengths)
        data = language_dataset(task, np.random.default_rng(seed), 12, lengths)
        rows = zip(words, data.inputs, data.targets, data.teachers, strict=True)
        for word, x, y, teacher in rows:
            fresh = coding.example(word)
            np.testing.assert_array_equal(x, fresh.inputs)
            np.testing.assert_array_equal(y, fresh.outputs[1:])
            np.testing.assert_array_equal(teacher.outputs, fresh.outputs)
            assert [list(step) for step in teacher.actions] == fresh.actions
            # shared, so read-only: a change would reach every later batch
            with pytest.raises(ValueError, match="read-only"):
                x[0, 0] = 2.0
            with pytest.raises(TypeError):
                teacher.actions[0] = []  # type: ignore[index]
