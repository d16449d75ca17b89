"""The forms of sequence inputs: a list, a 3-D array, one 2-D series; answers in kind."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse

from memrnn.estimators import EchoStateNetwork, ReservoirStackMachine
from memrnn.estimators.base import as_sequences, sequence_form
from memrnn.tasks.stack_teacher import StackTeacher


def test_the_form_of_the_inputs() -> None:
    assert sequence_form(np.zeros((2, 5, 3))) == "batch"
    assert sequence_form(np.zeros((5, 3))) == "series"
    assert sequence_form([np.zeros((5, 3))]) == "list"
    assert sequence_form([[0.0, 1.0], [2.0, 3.0]]) == "list"  # never read as one series


def test_a_batch_and_a_series_are_the_list_of_their_sequences() -> None:
    batch = np.arange(24.0).reshape(2, 4, 3)
    assert [a.tolist() for a in as_sequences("X", batch, "features")] == batch.tolist()
    (series,) = as_sequences("X", batch[0], "features")
    np.testing.assert_array_equal(series, batch[0])


def test_an_esn_answers_in_the_form_of_its_inputs() -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (3, 10, 2))
    Y = rng.normal(size=(3, 10, 1))
    from_list = EchoStateNetwork("ldn", 8).fit(list(X), list(Y)).predict(list(X))
    batch = EchoStateNetwork("ldn", 8).fit(X, Y).predict(X)
    assert isinstance(batch, np.ndarray) and batch.shape == (3, 10, 1)
    np.testing.assert_array_equal(batch, np.stack(from_list))
    series = EchoStateNetwork("ldn", 8).fit(X[0], Y[0][:, 0])
    assert series.predict(X[0]).shape == (10,)  # fitted on (T,), predicts (T,)
    assert series.predict([X[0], X[1]])[1].shape == (10,)
    np.testing.assert_array_equal(
        series.predict(X[0]), EchoStateNetwork("ldn", 8).fit([X[0]], [Y[0]]).predict(X[0])[:, 0]
    )


def test_the_stack_machine_reads_a_3d_array_and_one_series() -> None:
    rng = np.random.default_rng(1)
    X = rng.choice([0.0, 1.0], size=(4, 5, 2))
    teachers = [
        StackTeacher(
            actions=[[] for _ in range(6)],
            shift=[0] * 6,
            outputs=np.vstack([x.sum(axis=1, keepdims=True) > 0, [[0.0]]]).astype(float),
        )
        for x in X
    ]
    codes = np.zeros((1, 2))
    from_list = ReservoirStackMachine("ldn", degree=3).fit(list(X), teachers, nonterminals=codes)
    batch = ReservoirStackMachine("ldn", degree=3).fit(X, teachers, nonterminals=codes)
    np.testing.assert_array_equal(batch.predict(X), np.stack(from_list.predict(list(X))))
    one = ReservoirStackMachine("ldn", degree=3).fit(X[0], teachers[0], nonterminals=codes)
    assert one.predict(X[0]).shape == (6, 1)
    assert one.score(X[0], teachers[0]) <= 0.0


@pytest.mark.parametrize(
    ("X", "error", "message"),
    [
        (np.zeros(4), ValueError, "Reshape your data"),
        (scipy.sparse.csr_array(np.eye(3)), ValueError, "X: sparse input is not supported"),
        (np.zeros((3, 2), dtype=complex), ValueError, "X: Complex data not supported"),
        (np.zeros((3, 0)), ValueError, "X: 0 feature(s) (shape=(3, 0)) while a minimum of 1"),
        ([np.array([[{}]], dtype=object)], TypeError, "X[0]: cannot be read as a float array"),
        (None, ValueError, "X: expected sequences, got None"),
    ],
)
def test_bad_inputs_are_named(X: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        as_sequences("X", X, "features")


def test_missing_targets_are_named_as_scikit_learn_names_them() -> None:
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        EchoStateNetwork("ldn", 4).fit(np.zeros((3, 1)), None)
