"""The reservoir stack machine: stack encoding, teacher forcing, and learning Dyck1."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from memrnn.estimators.rsm import (
    ReencodingStack,
    ReservoirStackMachine,
    StackEncoder,
    TrainingSets,
    teacher_forcing,
)
from memrnn.languages.automata import automaton
from memrnn.languages.lr1 import LR1Automaton
from memrnn.languages.pcfg import sample_words
from memrnn.reservoir import crj_reservoir, random_reservoir
from memrnn.tasks.lr1_data import LR1Coding
from memrnn.tasks.stack_teacher import NO_PUSH, StackTeacher


def lr1_data(lr1: LR1Automaton, word: str) -> tuple[np.ndarray, StackTeacher, np.ndarray]:
    """Inputs, the teacher from Algorithm 1, and the nonterminal codes for ``word``."""
    coding = LR1Coding(lr1)
    example = coding.example(word)
    teacher = StackTeacher(example.actions, example.shift, example.outputs)
    return example.inputs, teacher, coding.nonterminal_codes()


def test_prefix_states_equal_reencoding() -> None:
    reservoir = random_reservoir(3, 12, random_state=0)
    rng = np.random.default_rng(1)
    fast, literal = StackEncoder(reservoir), ReencodingStack(reservoir)
    for _ in range(300):
        if len(fast) and rng.random() < 0.4:
            count = int(rng.integers(1, len(fast) + 1))
            fast.pop(count)
            literal.pop(count)
        else:
            symbol = np.eye(3)[rng.integers(3)]
            fast.push(symbol)
            literal.push(symbol)
        assert len(fast) == len(literal)
        np.testing.assert_allclose(fast.state, literal.state, atol=1e-12)
    with pytest.raises(ValueError, match="pop: 99 symbols asked for"):
        fast.pop(99)


def test_teacher_forcing_on_ab_by_hand() -> None:
    """Algorithm 1 on "ab": shift a; with lookahead b push S (rule (a, b, 0, S)); shift b;
    at the end reduce aSb to S (rule (aSb, e, 3, S)). Every step closes with (0, none)."""
    lr1 = automaton("anbn")
    x, teacher, codes = lr1_data(lr1, "ab")
    assert [list(a) for a in teacher.actions] == [[], [(0, 0)], [(3, 0)]]
    assert teacher.outputs[:, 0].tolist() == [0.0, 0.0, 1.0]
    sets = TrainingSets()
    teacher_forcing(
        crj_reservoir(3, 8, cycle_weight=0.5, jump_weight=0.3, jump_length=2, input_weight=1.0),
        x,
        teacher,
        codes,
        sets,
    )
    assert sets.pop_targets == [0, 0, 0, 3, 0]
    assert sets.push_targets == [NO_PUSH, 0, NO_PUSH, 0, NO_PUSH]
    assert sets.shift_targets == [1, 1, 1] and len(sets.step_inputs) == 3
    # c_pop and c_push share the row before the pop: the empty stack when a arrives, the
    # stack aSb when the reduction to S is decided
    m = 8
    assert len(sets.action_inputs) == 5
    np.testing.assert_allclose(sets.action_inputs[0][m:], np.zeros(m))
    assert np.abs(sets.action_inputs[3][m:]).sum() > 0


def _lr1_sets(
    name: str, rng: np.random.Generator, n: int, lo: int, hi: int
) -> tuple[list, list, np.ndarray]:
    lr1 = automaton(name)
    xs, teachers = [], []
    for word in sample_words(name, rng, n, lo, hi):
        x, teacher, codes = lr1_data(lr1, word)
        xs.append(x)
        teachers.append(teacher)
    return xs, teachers, codes


@pytest.mark.parametrize("name", ["dyck1", "latch", "json"])
def test_learns_with_zero_error_on_longer_words(name: str) -> None:
    """Latch pops its whole stack before each push: it fails unless c_push is asked on
    the state before the pop (the order of Algorithm 4, not of Algorithm 2 as printed)."""
    rng = np.random.default_rng(0)
    train_x, train_y, codes = _lr1_sets(name, rng, 40, 1, 16)
    test_x, test_y, _ = _lr1_sets(name, rng, 15, 20, 40)
    rsm = ReservoirStackMachine("crj", 32, cycle_weight=0.5, jump_weight=0.3, jump_length=3)
    assert rsm.fit(train_x, train_y, nonterminals=codes) is rsm
    predictions = rsm.predict(test_x)
    errors = [np.abs(p - t.outputs).mean() for p, t in zip(predictions, test_y, strict=True)]
    assert max(errors) == 0.0
    literal = rsm.predict(test_x[:3], reencode=True)
    for a, b in zip(literal, predictions[:3], strict=True):
        np.testing.assert_array_equal(a, b)
    for i in (0, 7):  # lockstep over a batch == each sequence alone
        np.testing.assert_array_equal(rsm.predict([test_x[i]])[0], predictions[i])


def test_estimator_contract_and_errors() -> None:
    rsm = ReservoirStackMachine("random", 16, C=10.0, random_state=3)
    assert clone(rsm).get_params() == rsm.get_params()
    assert rsm.set_params(C=5.0).C == 5.0
    x, teacher, codes = lr1_data(automaton("anbn"), "aabb")
    with pytest.raises(NotFittedError):
        rsm.predict([x])
    with pytest.raises(ValueError, match=r"y\[0\]: needs T \+ 1 = 5 steps"):
        rsm.fit(
            [x],
            [StackTeacher(teacher.actions[:-1], teacher.shift, teacher.outputs)],
            nonterminals=codes,
        )
    with pytest.raises(ValueError, match=r"nonterminals: expected shape \(K, 3\)"):
        rsm.fit([x], [teacher], nonterminals=np.ones((1, 2)))
    with pytest.raises(ValueError, match="nonterminals: contains NaN or inf"):
        rsm.fit([x], [teacher], nonterminals=np.full((1, 3), np.nan))
    with pytest.raises(ValueError, match=r"nonterminals: expected at least one \(K >= 1\)"):
        rsm.fit([x], [teacher], nonterminals=np.ones((0, 3)))
    with pytest.raises(ValueError, match=r"X\[0\]: expected a 2-D"):
        rsm.fit([np.ones(3)], [teacher], nonterminals=codes)
    with pytest.raises(ValueError, match="y: expected a list of StackTeacher"):
        rsm.fit([x], teacher, nonterminals=codes)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nonterminals: cannot be read as a float array"):
        rsm.fit([x], [teacher], nonterminals=[["a", "b", "c"]])  # type: ignore[arg-type]
    bad = StackTeacher([[(0, NO_PUSH)], [], [], [], []], teacher.shift, teacher.outputs)
    with pytest.raises(ValueError, match=r"action \(0, -1\) at step 0 is not allowed"):
        rsm.fit([x], [bad], nonterminals=codes)
    rsm.fit([x], [teacher], nonterminals=codes)
    with pytest.raises(ValueError, match=r"X\[0\] has 2 features, but \w+ is expecting 3"):
        rsm.predict([np.ones((3, 2))])


def test_ridge_output_keeps_its_channels_apart() -> None:
    """Copy at depth 6: the ridge c_out reads eight different bits off one stack position."""
    from memrnn.tasks.bit_copy import copy_example, nonterminal_codes

    rng = np.random.default_rng(0)
    examples = [copy_example(rng, int(rng.integers(1, 7)), depth=6) for _ in range(40)]
    xs = [e.inputs for e in examples]
    teachers = [StackTeacher(e.actions, e.shift, e.teacher_outputs) for e in examples]
    rsm = ReservoirStackMachine("ldn", 9 * 12, theta=8.0, output="ridge", alpha=1e-8)
    rsm.fit(xs, teachers, nonterminals=nonterminal_codes())
    for predicted, example in zip(rsm.predict(xs[:10]), examples[:10], strict=True):
        np.testing.assert_array_equal(predicted[:-1] > 0.5, example.outputs > 0.5)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"alpha": float("nan")}, "alpha: expected a finite number >= 0, got nan"),
        ({"alpha": -1.0, "output": "ridge"}, "alpha: expected a finite number >= 0, got -1.0"),
        ({"gamma_factor": float("inf")}, "gamma_factor: expected a finite number > 0, got inf"),
        ({"spectral_radius": float("nan")}, "spectral_radius: expected a finite number > 0"),
    ],
)
def test_every_setting_is_checked_before_fitting(params: dict[str, object], message: str) -> None:
    """alpha was read only for output="ridge", after the SVMs were fitted; the random
    reservoir's settings only by a random reservoir."""
    x, teacher, codes = lr1_data(automaton("anbn"), "aabb")
    rsm = ReservoirStackMachine("crj", 8, **params)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape(message)):
        rsm.fit([x], [teacher], nonterminals=codes)


def test_the_reencode_switch_takes_a_bool_only() -> None:
    x, teacher, codes = lr1_data(automaton("anbn"), "aabb")
    with pytest.raises(ValueError, match="reencode: expected True or False, got 'yes'"):
        ReservoirStackMachine("crj", 8).fit([x], [teacher], nonterminals=codes, reencode="yes")  # type: ignore[arg-type]
    rsm = ReservoirStackMachine("crj", 8).fit([x], [teacher], nonterminals=codes)
    with pytest.raises(ValueError, match="reencode: expected True or False, got 1"):
        rsm.predict([x], reencode=1)  # type: ignore[arg-type]
