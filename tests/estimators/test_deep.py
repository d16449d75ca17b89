"""The deep sequence baselines (GRU, SRNN): learning, seeding, the estimator contract."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from memrnn.estimators.deep import DeepSequenceModel
from memrnn.estimators.torch_estimator import output_values
from memrnn.models.stack_rnn import SuperpositionStackRNN


def _delay_data(seed: int, n_seq: int, T: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Random one-hot bits; the target is the bit one step earlier (0 at t = 0)."""
    rng = np.random.default_rng(seed)
    X = [np.eye(2)[rng.integers(2, size=T - i % 3)] for i in range(n_seq)]
    Y = [np.vstack([np.zeros((1, 1)), x[:-1, 1:]]) for x in X]
    return X, Y


def _error(model: DeepSequenceModel, X: list[np.ndarray], Y: list[np.ndarray]) -> float:
    return float(np.mean([np.abs(p - y).mean() for p, y in zip(model.predict(X), Y, strict=True)]))


@pytest.mark.parametrize("kind", ["gru", "srnn"])
def test_learns_a_one_step_delay_with_the_papers_optimiser(kind: str) -> None:
    """Adam at lr 1e-3, one word per epoch: exact on longer test words after 300 epochs,
    at chance after one."""
    X, Y = _delay_data(0, 20, 15)
    X_test, Y_test = _delay_data(1, 10, 30)
    untrained = DeepSequenceModel(kind, 32, epochs=1, random_state=0, threads=1).fit(X, Y)
    assert _error(untrained, X_test, Y_test) > 0.3
    model = DeepSequenceModel(kind, 32, epochs=300, random_state=0, threads=1)
    assert model.fit(X, Y) is model
    predictions = model.predict(X_test)
    assert [p.shape for p in predictions] == [y.shape for y in Y_test]
    assert set(np.unique(np.concatenate(predictions))) <= {0.0, 1.0}
    assert _error(model, X_test, Y_test) == 0.0
    assert model.loss_curve_.shape == (300,)
    assert model.loss_curve_[-20:].mean() < model.loss_curve_[:20].mean() / 10


@pytest.mark.parametrize("kind", ["gru", "srnn"])
def test_same_seed_same_model_and_global_rng_untouched(kind: str) -> None:
    X, Y = _delay_data(0, 4, 10)

    def fit(seed: int) -> DeepSequenceModel:
        model = DeepSequenceModel(kind, 8, epochs=20, loss="mse", random_state=seed, threads=1)
        return model.fit(X, Y)

    torch.manual_seed(123)
    before = torch.get_rng_state()
    a = fit(5)
    assert torch.equal(torch.get_rng_state(), before)
    b, c = fit(5), fit(6)
    np.testing.assert_array_equal(a.loss_curve_, b.loss_curve_)
    for p, q in zip(a.predict(X), b.predict(X), strict=True):
        np.testing.assert_array_equal(p, q)
    assert not np.array_equal(a.loss_curve_, c.loss_curve_)


@pytest.mark.parametrize("kind", ["gru", "srnn"])
def test_mse_outputs_are_raw_and_batching_pads_harmlessly(kind: str) -> None:
    """Sequences of different lengths predicted together equal each predicted alone."""
    X, Y = _delay_data(2, 5, 12)
    model = DeepSequenceModel(kind, 8, epochs=5, loss="mse", random_state=0, threads=1)
    model.fit(X, Y)
    together = model.predict(X)
    assert len(np.unique(np.concatenate(together))) > 2
    for x, p in zip(X, together, strict=True):
        np.testing.assert_allclose(model.predict([x])[0], p, atol=1e-6)


@pytest.mark.parametrize("kind", ["gru", "srnn"])
def test_predict_values_are_the_plain_outputs_before_the_decision(kind: str) -> None:
    """bce: the sigmoid probabilities, strictly between 0 and 1, which ``predict``
    thresholds at 0.5; mse: the raw outputs, as ``predict`` gives them."""
    X, Y = _delay_data(3, 5, 12)
    bce = DeepSequenceModel(kind, 8, epochs=5, random_state=0, threads=1).fit(X, Y)
    values = bce.predict_values(X)
    assert [v.shape for v in values] == [y.shape for y in Y]
    flat = np.concatenate(values)
    assert flat.min() > 0.0 and flat.max() < 1.0 and len(np.unique(flat)) > 2
    for v, p in zip(values, bce.predict(X), strict=True):
        np.testing.assert_array_equal((v > 0.5).astype(np.float64), p)
    mse = DeepSequenceModel(kind, 8, epochs=5, loss="mse", random_state=0, threads=1).fit(X, Y)
    for v, p in zip(mse.predict_values(X), mse.predict(X), strict=True):
        np.testing.assert_array_equal(v, p)


def test_output_values_sigmoid_for_bce_raw_for_mse() -> None:
    logits = np.array([[-2.0], [0.0], [3.0]], dtype=np.float32)
    expected = 1 / (1 + np.exp(-logits.astype(np.float64)))
    np.testing.assert_allclose(output_values("bce", logits), expected)
    assert output_values("bce", logits).dtype == np.float64
    np.testing.assert_array_equal(output_values("mse", logits), logits)


def test_progress_is_reported_and_threads_restored() -> None:
    X, Y = _delay_data(0, 3, 8)
    calls: list[tuple[int, float]] = []
    threads = torch.get_num_threads()
    model = DeepSequenceModel(
        "gru",
        4,
        epochs=250,
        random_state=0,
        threads=1,
        progress=lambda e, loss: calls.append((e, loss)),
    ).fit(X, Y)
    assert torch.get_num_threads() == threads
    assert [e for e, _ in calls] == [100, 200, 250]
    assert calls[2][1] == pytest.approx(model.loss_curve_[200:].mean())


def test_estimator_contract() -> None:
    model = DeepSequenceModel("srnn", 16, epochs=7, lr=0.01, stack_depth=9, random_state=3)
    assert clone(model).get_params() == model.get_params()
    assert model.set_params(hidden_size=4, epochs=2).get_params()["hidden_size"] == 4
    X, Y = _delay_data(0, 2, 6)
    with pytest.raises(NotFittedError):
        model.predict(X)
    assert model.fit(X, Y) is model
    assert model.n_features_in_ == 2 and model.n_outputs_ == 1
    (srnn,) = [m for m in model.module_.modules() if isinstance(m, SuperpositionStackRNN)]
    assert srnn.stack_depth == 9
    with pytest.raises(ValueError, match=r"X\[0\] has 3 features, but \w+ is expecting 2"):
        model.predict([np.ones((4, 3))])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"X": np.ones(3)}, r"X: expected a list of \(T, f\) arrays"),
        ({"X": [np.ones(3)]}, r"X\[0\]: expected a 2-D"),
        ({"Y": []}, r"Y: expected at least one sequence"),
        ({"Y": [np.zeros((5, 1)), np.zeros((5, 1))]}, r"Y: has 2 sequences but X has 1"),
        ({"Y": [np.zeros((4, 1))]}, r"Y\[0\]: has 4 time steps but X\[0\] has 5"),
        ({"Y": [np.full((5, 1), 2.0)]}, r"Y\[0\]: bce needs targets in \[0, 1\]"),
        ({"model": "lstm"}, "model: expected one of gru, srnn, got 'lstm'"),
        ({"loss": "l1"}, "loss: expected one of bce, mse, got 'l1'"),
        ({"hidden_size": 0}, r"hidden_size: expected an int >= 1"),
        ({"epochs": 0}, r"epochs: expected an int >= 1"),
        ({"lr": -1.0}, r"lr: expected a finite number > 0, got -1.0"),
        ({"weight_decay": -1.0}, r"weight_decay: expected a finite number >= 0, got -1.0"),
        ({"random_state": 1.5}, r"random_state: expected an int >= 0, got 1.5"),
        ({"threads": 0}, r"threads: expected an int >= 1"),
        ({"progress": 3}, r"progress: expected a callable or None"),
        ({"model": "srnn", "stack_depth": 0}, r"stack_depth: expected an int >= 1"),
        ({"model": "gru", "stack_width": float("nan")}, r"stack_width: expected an int >= 1"),
        ({"X": [np.full((5, 2), 1e300)]}, r"X\[0\]: holds 1e\+300, beyond float32's largest"),
        ({"Y": [np.full((5, 1), -1e39)], "loss": "mse"}, r"Y\[0\]: holds 1e\+39, beyond"),
    ],
)
def test_bad_arguments_are_named(change: dict[str, object], message: str) -> None:
    data: dict[str, Any] = {"X": [np.zeros((5, 2))], "Y": [np.zeros((5, 1))]}
    params: dict[str, Any] = {"hidden_size": 4, "epochs": 1}
    for key, value in change.items():
        (data if key in data else params)[key] = value
    with pytest.raises(ValueError, match=message):
        DeepSequenceModel(**params).fit(data["X"], data["Y"])


def test_predict_refuses_inputs_beyond_float32() -> None:
    model = DeepSequenceModel("gru", 4, epochs=1, random_state=0, loss="mse")
    model.fit([np.zeros((5, 2))], [np.zeros((5, 1))])
    with pytest.raises(ValueError, match=r"X\[1\]: holds 1e\+300, beyond float32's largest"):
        model.predict([np.zeros((3, 2)), np.full((3, 2), 1e300)])
