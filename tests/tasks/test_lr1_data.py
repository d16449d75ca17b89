"""LR(1) words as one-hot inputs and teacher actions for the reservoir stack machine."""

from __future__ import annotations

import numpy as np

from memrnn.languages.automata import automaton
from memrnn.tasks.lr1_data import LR1Coding


def test_anbn_word_by_hand() -> None:
    coding = LR1Coding(automaton("anbn"))
    assert coding.terminals == ["a", "b"] and coding.nonterminals == ["S"]
    np.testing.assert_array_equal(coding.nonterminal_codes(), [[0.0, 0.0, 1.0]])
    example = coding.example("aabb")
    np.testing.assert_array_equal(example.inputs, [[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0]])
    # a, a: shift; b with a on top: push S; b with aSb on top: reduce to S, and again at #
    assert example.actions == [[], [], [(0, 0)], [(3, 0)], [(3, 0)]]
    assert example.outputs[:, 0].tolist() == [0, 0, 0, 0, 1]
    assert example.shift.tolist() == [1, 1, 1, 1, 1]


def test_dyck1_outputs_mark_every_balanced_prefix() -> None:
    example = LR1Coding(automaton("dyck1")).example("()(())")
    # row t+1 is read before symbol t+1 is shifted: it judges the prefix of length t
    assert example.outputs[:, 0].tolist() == [0, 0, 1, 0, 0, 0, 1]


def test_teacher() -> None:
    example = LR1Coding(automaton("anbn")).example("ab")
    teacher = example.teacher
    assert teacher.actions is example.actions and teacher.outputs is example.outputs
    assert teacher.shift is example.shift
