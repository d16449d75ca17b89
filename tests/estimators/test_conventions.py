"""random_state as an int, a Generator or a RandomState, and what score reports."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.metrics import r2_score

from memrnn.estimators import DeepSequenceModel, EchoStateNetwork
from memrnn.estimators.conventions import as_generator, as_seed, negative_mae, pooled_accuracy


def _data() -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(0)
    X = [rng.uniform(-1, 1, (T, 2)) for T in (12, 9)]
    return X, [np.tanh(x.sum(axis=1, keepdims=True)) for x in X]


def test_an_int_seed_draws_what_it_always_drew() -> None:
    assert as_generator("r", 7).random() == np.random.default_rng(7).random()
    assert as_seed("r", 7) == 7
    generator = np.random.default_rng(3)
    assert as_generator("r", generator) is generator


def test_a_generator_and_a_random_state_give_seeds_by_one_draw() -> None:
    assert as_seed("r", np.random.default_rng(5)) == np.random.default_rng(5).integers(2**63)
    expected = np.random.RandomState(5).randint(np.iinfo(np.int64).max, dtype=np.int64)
    assert as_seed("r", np.random.RandomState(5)) == expected
    assert (
        as_generator("r", np.random.RandomState(5)).random()
        == np.random.default_rng(int(expected)).random()
    )


@pytest.mark.parametrize("bad", [-1, 1.5, "0", True])
def test_a_bad_random_state_is_named(bad: object) -> None:
    with pytest.raises(ValueError, match=re.escape("random_state: expected an int >= 0")):
        as_generator("random_state", bad)
    with pytest.raises(ValueError, match=re.escape("random_state: expected an int >= 0")):
        as_seed("random_state", bad)


MAKERS = [
    lambda r: EchoStateNetwork("random", 6, random_state=r),
    lambda r: DeepSequenceModel("gru", 3, epochs=3, loss="mse", random_state=r),
]


@pytest.mark.parametrize("make", MAKERS)
def test_every_kind_of_random_state_fits_repeatably(make: object) -> None:
    X, Y = _data()
    for kind in (lambda: 4, lambda: np.random.default_rng(4), lambda: np.random.RandomState(4)):
        first = make(kind()).fit(X, Y).predict(X)  # type: ignore[operator]
        second = make(kind()).fit(X, Y).predict(X)  # type: ignore[operator]
        np.testing.assert_array_equal(np.concatenate(first), np.concatenate(second))


def test_the_regressors_score_pooled_r2() -> None:
    X, Y = _data()
    esn = EchoStateNetwork("ldn", 8).fit(X, Y)
    expected = r2_score(np.concatenate(Y), np.concatenate(esn.predict(X)))
    assert esn.score(X, Y) == pytest.approx(expected, abs=1e-15)


def test_a_bce_model_scores_its_accuracy() -> None:
    X, Y = _data()
    Y01 = [(y > 0).astype(float) for y in Y]
    model = DeepSequenceModel("gru", 3, epochs=3, random_state=0).fit(X, Y01)
    expected = np.mean(np.concatenate(model.predict(X)) == np.concatenate(Y01))
    assert model.score(X, Y01) == pytest.approx(expected, abs=1e-15)


def test_the_pooled_scores_by_hand() -> None:
    targets = [np.array([[0.0], [1.0]]), np.array([[1.0]])]
    predictions = [np.array([[0.0], [0.0]]), np.array([[1.0]])]
    assert pooled_accuracy(targets, predictions) == pytest.approx(2 / 3)
    assert negative_mae(targets, predictions) == pytest.approx(-1 / 3)
