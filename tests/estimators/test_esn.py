"""The echo state network: fits a delay, follows the scikit-learn contract, checks input."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import Ridge

from memrnn.estimators import EchoStateNetwork
from memrnn.reservoir import Reservoir, ldn_reservoir, random_reservoir


def _delay_data(n_seq: int, seed: int, n: int = 2, T: int = 100) -> tuple[list, list]:
    """Uniform noise in [-1, 1]; the target is the input one step earlier (0 at t = 0)."""
    rng = np.random.default_rng(seed)
    X = [rng.uniform(-1, 1, (T - 7 * (i % 3), n)) for i in range(n_seq)]
    Y = [np.vstack([np.zeros((1, n)), x[:-1]]) for x in X]
    return X, Y


@pytest.mark.parametrize(
    ("params", "tol"),
    [
        ({"reservoir": "ldn", "n_neurons": 64}, 1e-3),
        ({"reservoir": "crj", "n_neurons": 50, "input_weight": 0.05, "alpha": 1e-8}, 0.02),
        (
            {
                "reservoir": "random",
                "n_neurons": 50,
                "input_scaling": 0.05,
                "spectral_radius": 0.5,
                "alpha": 1e-8,
                "random_state": 0,
            },
            0.02,
        ),
    ],
    ids=["ldn", "crj", "random"],
)
def test_esn_learns_a_one_step_delay(params: dict[str, object], tol: float) -> None:
    X, Y = _delay_data(10, seed=1)
    X_test, Y_test = _delay_data(5, seed=2)
    esn = EchoStateNetwork(**params).fit(X, Y)
    P = esn.predict(X_test)
    assert [p.shape for p in P] == [y.shape for y in Y_test]
    err = max(np.abs(p - y).max() for p, y in zip(P, Y_test, strict=True))
    assert err < tol


def test_esn_readout_is_ridge_on_the_reservoir_states() -> None:
    X, Y = _delay_data(3, seed=0, n=1, T=30)
    esn = EchoStateNetwork("ldn", n_neurons=4, theta=3.0, alpha=0.5).fit(X, Y)
    r = ldn_reservoir(1, 4, 3.0)
    np.testing.assert_array_equal(esn.reservoir_.W, r.W)
    H = np.concatenate([r.states(x) for x in X])
    Yc = np.concatenate(Y)
    # closed-form ridge with an unpenalised intercept: centre, solve, add the mean back
    Hm, Ym = H.mean(0), Yc.mean(0)
    coef = np.linalg.solve((H - Hm).T @ (H - Hm) + 0.5 * np.eye(4), (H - Hm).T @ (Yc - Ym))
    expected = (r.states(X[1]) - Hm) @ coef + Ym
    np.testing.assert_allclose(esn.predict([X[1]])[0], expected, atol=1e-10)


def test_each_sequence_starts_from_the_zero_state() -> None:
    X, Y = _delay_data(4, seed=3)
    esn = EchoStateNetwork("crj", n_neurons=20, input_weight=0.1).fit(X, Y)
    together = esn.predict(X[:2])
    np.testing.assert_allclose(together[0], esn.predict([X[0]])[0], atol=1e-12)
    np.testing.assert_allclose(together[1], esn.predict([X[1]])[0], atol=1e-12)
    # the same holds during fit: one long concatenated sequence gives another readout
    long = EchoStateNetwork("crj", n_neurons=20, input_weight=0.1)
    long.fit([np.concatenate(X)], [np.concatenate(Y)])
    assert not np.allclose(long.readout_.coef_, esn.readout_.coef_)


def test_ldn_degree_defaults_to_neurons_per_channel() -> None:
    X, Y = _delay_data(2, seed=0, n=3, T=20)
    esn = EchoStateNetwork("ldn", n_neurons=10).fit(X, Y)
    assert esn.reservoir_.n_neurons == 9  # 10 // 3 = 3 per channel
    esn = EchoStateNetwork("ldn", n_neurons=10, degree=5).fit(X, Y)
    assert esn.reservoir_.n_neurons == 15
    assert isinstance(esn.reservoir_, Reservoir) and esn.reservoir_.activation == "identity"


def test_a_3d_array_is_a_batch_of_sequences() -> None:
    X, Y = _delay_data(3, seed=0, T=30)  # lengths 30, 23, 16
    X3 = np.stack([x[:13] for x in X])
    Y3 = np.stack([y[:13] for y in Y])
    a = EchoStateNetwork("ldn", n_neurons=8).fit(X3, Y3)
    b = EchoStateNetwork("ldn", n_neurons=8).fit([x for x in X3], [y for y in Y3])
    np.testing.assert_array_equal(a.predict(X3)[2], b.predict(list(X3))[2])


# --------------------------------------------------------------------------------------
# scikit-learn contract


def test_fit_returns_self_and_sets_learned_attributes() -> None:
    X, Y = _delay_data(2, seed=0, T=20)
    esn = EchoStateNetwork("random", n_neurons=10, random_state=0)
    assert not any(k.endswith("_") and not k.startswith("_") for k in vars(esn))
    assert esn.fit(X, Y) is esn
    assert esn.n_features_in_ == 2 and esn.n_outputs_ == 2
    assert esn.reservoir_.n_neurons == 10


def test_get_params_set_params_round_trip() -> None:
    esn = EchoStateNetwork("crj", n_neurons=33, jump_length=4, alpha=0.1, random_state=5)
    params = esn.get_params()
    assert params["reservoir"] == "crj" and params["n_neurons"] == 33
    assert params["jump_length"] == 4 and params["alpha"] == 0.1 and params["random_state"] == 5
    other = EchoStateNetwork().set_params(**params)
    assert other.get_params() == params
    assert other.set_params(theta=3.0) is other and other.theta == 3.0


def test_clone_gives_an_unfitted_copy_with_the_same_params() -> None:
    X, Y = _delay_data(2, seed=0, T=20)
    esn = EchoStateNetwork("random", n_neurons=12, random_state=3).fit(X, Y)
    copy = clone(esn)
    assert copy is not esn and copy.get_params() == esn.get_params()
    with pytest.raises(NotFittedError):
        copy.predict(X)
    np.testing.assert_array_equal(copy.fit(X, Y).predict(X)[0], esn.predict(X)[0])


def test_unfitted_predict_raises_not_fitted() -> None:
    with pytest.raises(NotFittedError):
        EchoStateNetwork().predict([np.zeros((3, 1))])


def test_random_state_makes_fits_repeatable() -> None:
    X, Y = _delay_data(2, seed=0, T=20)
    a = EchoStateNetwork("random", n_neurons=15, random_state=1).fit(X, Y).predict(X)[0]
    b = EchoStateNetwork("random", n_neurons=15, random_state=1).fit(X, Y).predict(X)[0]
    c = EchoStateNetwork("random", n_neurons=15, random_state=2).fit(X, Y).predict(X)[0]
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


# --------------------------------------------------------------------------------------
# bad input


def _good() -> tuple[list[np.ndarray], list[np.ndarray]]:
    X = [np.zeros((5, 2)), np.ones((4, 2)), np.zeros((6, 2))]
    Y = [np.zeros((5, 1)), np.ones((4, 1)), np.zeros((6, 1))]
    return X, Y


def _nan_in_x0(X: list, Y: list) -> None:
    X[0] = X[0].copy()
    X[0][2, 1] = np.nan


BAD_FIT = [  # (how to spoil the good data, message)
    (
        lambda X, Y: X.__setitem__(1, np.zeros(4)),
        "X[1]: expected a 2-D (T, f) array, got shape (4,)",
    ),
    (
        lambda X, Y: Y.__setitem__(2, np.zeros(6)),
        "Y[2]: expected a 2-D (T, o) array, got shape (6,)",
    ),
    (lambda X, Y: X.__setitem__(1, np.zeros((4, 2, 1))), "X[1]: expected a 2-D"),
    (lambda X, Y: Y.__setitem__(1, np.zeros((3, 1))), "Y[1]: has 3 time steps but X[1] has 4"),
    (lambda X, Y: X.__setitem__(2, np.zeros((6, 3))), "X[2]: has 3 features but X[0] has 2"),
    (lambda X, Y: Y.__setitem__(1, np.zeros((4, 2))), "Y[1]: has 2 outputs but Y[0] has 1"),
    (_nan_in_x0, "X[0]: contains NaN or inf"),
    (lambda X, Y: Y.__setitem__(0, np.full((5, 1), np.inf)), "Y[0]: contains NaN or inf"),
    (lambda X, Y: X.__setitem__(1, np.zeros((0, 2))), "X[1]: is empty (0 time steps)"),
    (lambda X, Y: X.__setitem__(1, [["a", "b"]]), "X[1]: cannot be read as a float array"),
    (lambda X, Y: Y.pop(), "Y: has 2 sequences but X has 3"),
]


@pytest.mark.parametrize(("spoil", "message"), BAD_FIT)
def test_fit_rejects_bad_sequences(spoil: object, message: str) -> None:
    X, Y = _good()
    spoil(X, Y)  # type: ignore[operator]
    with pytest.raises(ValueError, match=re.escape(message)):
        EchoStateNetwork("ldn", n_neurons=4).fit(X, Y)


def test_fit_rejects_a_1d_array_and_an_empty_list() -> None:
    X, Y = _good()
    with pytest.raises(ValueError, match=re.escape("X: expected a list of (T, f) arrays")):
        EchoStateNetwork().fit(X[0][:, 0], Y)
    with pytest.raises(ValueError, match=re.escape("X: expected at least one sequence")):
        EchoStateNetwork().fit([], [])


def test_predict_rejects_a_different_width() -> None:
    X, Y = _good()
    esn = EchoStateNetwork("ldn", n_neurons=4).fit(X, Y)
    with pytest.raises(
        ValueError,
        match=re.escape("X[1] has 3 features, but EchoStateNetwork is expecting 2 features"),
    ):
        esn.predict([np.zeros((3, 2)), np.zeros((3, 3))])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"reservoir": "lstm"}, "reservoir: expected one of ldn, crj, random, got 'lstm'"),
        ({"alpha": -1.0}, "alpha: expected a finite number >= 0, got -1.0"),
        ({"reservoir": "random", "n_neurons": 0}, "n_neurons: expected an int >= 1"),
        ({"reservoir": "ldn", "n_neurons": 10**9}, "n_neurons: 1000000000 needs 7.45e+09 GiB"),
        ({"reservoir": "crj", "n_neurons": 5, "jump_length": 1}, "jump_length: must lie in"),
        ({"reservoir": "ldn", "n_neurons": 1}, "n_neurons: an LDN needs at least one neuron"),
        ({"reservoir": "ldn", "degree": 0}, "degree: expected an int >= 1"),
        ({"reservoir": "ldn", "theta": 0.0}, "theta: expected a finite number > 0, got 0.0"),
        ({"reservoir": "random", "sparsity": 2.0}, "sparsity: expected a finite number in (0, 1]"),
        # the settings of the kinds not chosen are mistakes all the same
        ({"reservoir": "ldn", "spectral_radius": float("nan")}, "spectral_radius: expected a"),
        ({"reservoir": "crj", "n_neurons": 8, "theta": -1.0}, "theta: expected a finite number"),
        ({"reservoir": "random", "cycle_weight": float("inf")}, "cycle_weight: expected a"),
        ({"reservoir": "ldn", "random_state": -1}, "random_state: expected an int >= 0"),
        ({"reservoir": "ldn", "jump_length": 0}, "jump_length: expected an int >= 1, got 0"),
        ({"reservoir": "crj", "n_neurons": 8, "dt": 0.0}, "dt: expected a finite number > 0"),
        ({"reservoir": "random", "n_neurons": 8, "degree": True}, "degree: expected an int >= 1"),
    ],
)
def test_fit_rejects_bad_hyperparameters(params: dict[str, object], message: str) -> None:
    X, Y = _good()
    with pytest.raises(ValueError, match=re.escape(message)):
        EchoStateNetwork(**params).fit(X, Y)


# --------------------------------------------------------------------------------------
# leak rate, bias and warm-up (reservoirpy's lr, bias and warmup)


def _data(seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    X = [rng.uniform(-1, 1, (T, 2)) for T in (30, 17, 25)]
    Y = [rng.normal(size=(len(x), 3)) for x in X]
    return X, Y


def _literal_states(U: np.ndarray, W: np.ndarray, x: np.ndarray, a: float, b: float) -> list:
    h, out = np.zeros(W.shape[0]), []
    for t in range(len(x)):
        h = (1 - a) * h + a * np.tanh(U @ x[t] + W @ h + b)
        out.append(h)
    return out


@pytest.mark.parametrize(
    ("leak_rate", "bias", "warmup"), [(0.3, 0.0, 0), (1.0, 0.4, 0), (0.6, -0.2, 5)]
)
def test_leak_bias_and_warmup_match_a_literal_esn(
    leak_rate: float, bias: float, warmup: int
) -> None:
    X, Y = _data(0)
    esn = EchoStateNetwork(
        "random", 20, leak_rate=leak_rate, bias=bias, warmup=warmup, random_state=3
    ).fit(X, Y)
    plain = random_reservoir(2, 20, random_state=3)
    states = [np.array(_literal_states(plain.U, plain.W, x, leak_rate, bias)) for x in X]
    rows = np.vstack([h[warmup:] for h in states])
    readout = Ridge(alpha=1e-5).fit(rows, np.vstack([y[warmup:] for y in Y]))
    for h, predicted in zip(states, esn.predict(X), strict=True):
        assert predicted.shape == (len(h), 3)  # the warm-up steps are still predicted
        np.testing.assert_allclose(predicted, readout.predict(h), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("reservoir", ["ldn", "crj", "random"])
def test_the_defaults_are_the_plain_esn_bit_for_bit(reservoir: str) -> None:
    X, Y = _data(1)
    esn = EchoStateNetwork(reservoir, 16, random_state=0).fit(X, Y)
    plain = EchoStateNetwork(reservoir, 16, random_state=0)._build_reservoir(2)
    H = np.concatenate([plain.states(x) for x in X])  # the ESN as it was before the three
    readout = Ridge(alpha=1e-5).fit(H, np.concatenate(Y))
    np.testing.assert_array_equal(np.concatenate(esn.predict(X)), readout.predict(H))


def test_a_warmup_longer_than_every_sequence_is_named() -> None:
    X, Y = _data(2)
    with pytest.raises(ValueError, match=re.escape("warmup: 30 steps leave nothing to fit")):
        EchoStateNetwork("ldn", 8, warmup=30).fit(X, Y)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"leak_rate": 0.0}, "leak_rate: expected a finite number in (0, 1], got 0.0"),
        ({"leak_rate": 1.01}, "leak_rate: expected a finite number in (0, 1]"),
        ({"bias": float("inf")}, "bias: expected a finite number"),
        ({"warmup": -1}, "warmup: expected an int >= 0, got -1"),
        ({"warmup": 1.5}, "warmup: expected an int >= 0, got 1.5"),
    ],
)
def test_a_bad_leak_rate_bias_or_warmup_is_named(params: dict[str, object], message: str) -> None:
    X, Y = _data(3)
    with pytest.raises(ValueError, match=re.escape(message)):
        EchoStateNetwork("ldn", 8, **params).fit(X, Y)  # type: ignore[arg-type]
