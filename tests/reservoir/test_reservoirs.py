"""Reservoirs: the states of every construction against a literal loop, the checks."""

from __future__ import annotations

import re

import numpy as np
import pytest

from memrnn.reservoir import Reservoir, crj_reservoir, ldn_reservoir, random_reservoir

# --------------------------------------------------------------------------------------
# states


def _literal_states(r: Reservoir, X: np.ndarray, h0: np.ndarray) -> np.ndarray:
    # h_t = (1 - a) h_{t-1} + a sigma(U x_t + W h_{t-1} + b), neuron by neuron
    sigma = np.tanh if r.activation == "tanh" else (lambda a: a)
    h = h0.copy()
    out = []
    for t in range(X.shape[0]):
        new = np.zeros(r.n_neurons)
        for i in range(r.n_neurons):
            a = sum(r.U[i, j] * X[t, j] for j in range(r.n_inputs)) + sum(
                r.W[i, k] * h[k] for k in range(r.n_neurons)
            )
            new[i] = (1 - r.leak_rate) * h[i] + r.leak_rate * sigma(a + r.bias)
        h = new
        out.append(h)
    return np.array(out)


@pytest.mark.parametrize(
    "make",
    [
        lambda: random_reservoir(3, 7, random_state=0),
        lambda: crj_reservoir(
            3, 7, cycle_weight=0.6, jump_weight=0.2, jump_length=3, input_weight=0.4
        ),
        lambda: ldn_reservoir(3, 2, 4.0, dt=0.5),
    ],
    ids=["random", "crj", "ldn"],
)
def test_states_equal_a_literal_loop(make: object) -> None:
    r: Reservoir = make()  # type: ignore[operator]
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (11, 3))
    H = r.states(X)
    assert H.shape == (11, r.n_neurons)
    np.testing.assert_allclose(H, _literal_states(r, X, np.zeros(r.n_neurons)), atol=1e-12)
    h0 = rng.uniform(-0.5, 0.5, r.n_neurons)
    np.testing.assert_allclose(r.states(X, h0), _literal_states(r, X, h0), atol=1e-12)
    # step is the same map
    np.testing.assert_allclose(r.step(H[4], X[5]), H[5], atol=1e-12)


@pytest.mark.parametrize("activation", ["tanh", "identity"])
@pytest.mark.parametrize(("leak_rate", "bias"), [(0.3, 0.0), (1.0, -0.7), (0.05, 0.25)])
def test_leaky_biased_states_equal_a_literal_loop(
    activation: str, leak_rate: float, bias: float
) -> None:
    rng = np.random.default_rng(1)
    U, W = rng.normal(size=(6, 2)), 0.3 * rng.normal(size=(6, 6))
    r = Reservoir(U, W, activation, leak_rate=leak_rate, bias=bias)  # type: ignore[arg-type]
    X, h0 = rng.uniform(-1, 1, (9, 2)), rng.uniform(-0.5, 0.5, 6)
    expected = _literal_states(r, X, h0)
    np.testing.assert_allclose(r.states(X, h0), expected, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(r.step(expected[3], X[4]), expected[4], rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(r.step_batch(expected[:-1], X[1:]), expected[1:], atol=1e-13)


def test_no_leak_and_no_bias_are_the_plain_reservoir_bit_for_bit() -> None:
    rng = np.random.default_rng(2)
    U, W = rng.normal(size=(6, 2)), 0.3 * rng.normal(size=(6, 6))
    X = rng.uniform(-1, 1, (20, 2))
    h, plain = np.zeros(6), []
    for drive in X @ U.T:  # the formula memrnn computed before the leak and the bias
        h = np.tanh(drive + W @ h)
        plain.append(h)
    np.testing.assert_array_equal(Reservoir(U, W, "tanh").states(X), np.array(plain))


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"leak_rate": 0.0}, "leak_rate: expected a finite number in (0, 1], got 0.0"),
        ({"leak_rate": 1.5}, "leak_rate: expected a finite number in (0, 1], got 1.5"),
        ({"bias": np.nan}, "bias: expected a"),
    ],
)
def test_reservoir_rejects_a_bad_leak_rate_or_bias(setting: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        Reservoir(np.ones((2, 1)), np.zeros((2, 2)), **setting)  # type: ignore[arg-type]


def test_reservoir_arrays_are_private_read_only_copies() -> None:
    U = np.ones((2, 1))
    W = np.zeros((2, 2))
    r = Reservoir(U, W, "identity")
    U[0, 0] = 5.0
    assert r.U[0, 0] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        r.W[0, 0] = 1.0


@pytest.mark.parametrize(
    ("U", "W", "activation", "message"),
    [
        (np.ones(3), np.zeros((3, 3)), "tanh", "U: expected a non-empty (m, n) matrix"),
        (np.ones((3, 1)), np.zeros((2, 2)), "tanh", "W: expected shape (m, m) = (3, 3)"),
        (np.ones((3, 1)), np.zeros((3, 3)), "relu", "activation: expected one of"),
        (np.ones((3, 1)), np.full((3, 3), np.nan), "tanh", "W: contains NaN or inf"),
        (np.ones((3, 1)), np.zeros((3, 3), dtype=complex), "tanh", "W: expected real numbers"),
    ],
)
def test_reservoir_rejects_bad_matrices(
    U: np.ndarray, W: np.ndarray, activation: str, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        Reservoir(U, W, activation)


def test_states_reject_bad_input() -> None:
    r = ldn_reservoir(2, 3, 5.0)
    with pytest.raises(ValueError, match=re.escape("X: expected shape (T, n) with n = 2")):
        r.states(np.zeros((4, 3)))
    with pytest.raises(ValueError, match=re.escape("X: contains NaN or inf")):
        r.states(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match=re.escape("h0: expected shape (m,) = (6,)")):
        r.states(np.zeros((4, 2)), h0=np.zeros(5))
    with pytest.raises(ValueError, match=re.escape("x: expected shape (n,) = (2,)")):
        r.step(np.zeros(6), np.zeros(3))


def test_step_batch_equals_step_row_by_row() -> None:
    reservoir = random_reservoir(3, 10, random_state=5)
    rng = np.random.default_rng(0)
    H, X = rng.normal(size=(4, 10)), rng.normal(size=(4, 3))
    batch = reservoir.step_batch(H, X)
    for i in range(4):
        np.testing.assert_allclose(batch[i], reservoir.step(H[i], X[i]), atol=1e-14)
