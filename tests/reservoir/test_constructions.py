"""The reservoir constructions: the CRJ and LDN conventions on small matrices, the random
reservoir, the checks."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.signal import cont2discrete
from scipy.special import eval_legendre

from memrnn.reservoir import (
    crj_input_signs,
    crj_jumps,
    crj_reservoir,
    ldn_continuous,
    ldn_discrete,
    ldn_reservoir,
    pi_digits,
    random_reservoir,
)

PI_50 = "31415926535897932384626433832795028841971693993751"

# --------------------------------------------------------------------------------------
# digits of pi (the CRJ's input sign source)


def test_pi_digits_first_fifty() -> None:
    assert pi_digits(50) == PI_50
    assert pi_digits(1) == "3"


def test_pi_digits_feynman_point() -> None:
    # six 9s from the 762nd decimal place; index 0 is the leading 3, so index k is place k
    s = pi_digits(800)
    assert s[762:768] == "999999"
    assert s[761] != "9" and s[768] != "9"


def test_pi_digits_beyond_the_int_to_str_limit_match_mpmath() -> None:
    mpmath = pytest.importorskip("mpmath")
    n = 5000  # over CPython's 4300-digit int -> str limit
    with mpmath.workdps(n + 20):
        ref = mpmath.nstr(mpmath.pi, n + 10, strip_zeros=False).replace(".", "")[:n]
    assert pi_digits(n) == ref


# --------------------------------------------------------------------------------------
# CRJ, written out by hand


def test_crj_paper_figure_1_example() -> None:
    # Paassen et al., section 3 / Figure 1: five neurons, jump length 2, input weight 1,
    # cycle weight 0.5; one-hot inputs over {a, b, S} (n = 3). The jump weight is not
    # given in the text; 0.3 here.
    c, j = 0.5, 0.3
    r = crj_reservoir(3, 5, cycle_weight=c, jump_weight=j, jump_length=2, input_weight=1.0)
    W = np.array(
        [
            # from: 0  1  2  3  4
            [0, 0, j, 0, c],  # to 0: cycle from 4, jump from 2
            [c, 0, 0, 0, 0],  # to 1: cycle from 0
            [j, c, 0, 0, j],  # to 2: cycle from 1, jumps from 0 and 4
            [0, 0, c, 0, 0],  # to 3: cycle from 2
            [0, 0, j, c, 0],  # to 4: cycle from 3, jump from 2
        ]
    )
    # pi = 3.14159 26535 8979...: digits 0-4 give -, 5-9 give +, row by row
    U = np.array(
        [
            [-1, -1, -1],  # 3 1 4
            [-1, +1, +1],  # 1 5 9
            [-1, +1, +1],  # 2 6 5
            [-1, +1, +1],  # 3 5 8
            [+1, +1, +1],  # 9 7 9
        ]
    )
    np.testing.assert_array_equal(r.W, W)
    np.testing.assert_array_equal(r.U, U)
    assert r.activation == "tanh"


def test_crj_when_jump_length_divides_size_the_last_jump_closes_on_neuron_0() -> None:
    c, j = 0.7, 0.2
    r = crj_reservoir(1, 6, cycle_weight=c, jump_weight=j, jump_length=2, input_weight=0.5)
    W = np.array(
        [
            [0, 0, j, 0, j, c],
            [c, 0, 0, 0, 0, 0],
            [j, c, 0, 0, j, 0],
            [0, 0, c, 0, 0, 0],
            [j, 0, j, c, 0, 0],
            [0, 0, 0, 0, c, 0],
        ]
    )
    np.testing.assert_array_equal(r.W, W)
    # 3 1 4 1 5 9
    np.testing.assert_array_equal(r.U.ravel(), 0.5 * np.array([-1, -1, -1, -1, 1, 1]))


def test_crj_four_neurons_single_two_way_jump() -> None:
    c, j = 0.7, 0.9
    r = crj_reservoir(1, 4, cycle_weight=c, jump_weight=j, jump_length=2, input_weight=1.0)
    W = np.array([[0, 0, j, c], [c, 0, 0, 0], [j, c, 0, 0], [0, 0, c, 0]])
    np.testing.assert_array_equal(r.W, W)


@pytest.mark.parametrize(
    ("m", "ell", "links"),
    [
        (4, 2, [(0, 2), (2, 0)]),
        (5, 2, [(0, 2), (2, 4)]),
        (6, 2, [(0, 2), (2, 4), (4, 0)]),
        (7, 3, [(0, 3), (3, 6)]),
        (9, 3, [(0, 3), (3, 6), (6, 0)]),
        (10, 4, [(0, 4), (4, 8)]),
    ],
)
def test_crj_jump_links(m: int, ell: int, links: list[tuple[int, int]]) -> None:
    assert crj_jumps(m, ell) == links


def test_crj_input_signs_neuron_major() -> None:
    # m = 2, n = 4: digits 3 1 4 1 | 5 9 2 6
    np.testing.assert_array_equal(
        crj_input_signs(4, 2), np.array([[-1, -1, -1, -1], [1, 1, -1, 1]])
    )


def test_crj_cycle_carries_a_pulse_from_neuron_i_to_i_plus_1() -> None:
    # With no jumps, a state on neuron 4 moves to neuron 0 (the cycle closes) after one
    # step of zero input, then to neuron 1.
    r = crj_reservoir(1, 5, cycle_weight=0.5, jump_weight=0.0, jump_length=2, input_weight=1.0)
    h = np.zeros(5)
    h[4] = 0.8
    h1 = r.step(h, np.zeros(1))
    np.testing.assert_allclose(h1, np.tanh(0.4) * np.eye(5)[0])
    np.testing.assert_allclose(r.step(h1, np.zeros(1)), np.tanh(0.5 * np.tanh(0.4)) * np.eye(5)[1])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"jump_length": 1}, "jump_length: must lie in [2, n_neurons - 2] = [2, 3]"),
        ({"jump_length": 4}, "jump_length: must lie in [2, n_neurons - 2]"),
        ({"jump_length": 5}, "jump_length: must lie in [2, n_neurons - 2]"),
        ({"jump_length": 2.0}, "jump_length: expected an int >= 1, got 2.0"),
        ({"n_neurons": 3}, "jump_length: must lie in [2, n_neurons - 2] = [2, 1]"),
        ({"n_neurons": 0}, "n_neurons: expected an int >= 1, got 0"),
        ({"n_inputs": True}, "n_inputs: expected an int >= 1, got True"),
        ({"input_weight": 0.0}, "input_weight: expected a finite number > 0, got 0.0"),
        ({"input_weight": -1.0}, "input_weight: expected a finite number > 0, got -1.0"),
        ({"cycle_weight": float("nan")}, "cycle_weight: expected a finite number, got nan"),
        ({"jump_weight": "0.1"}, "jump_weight: expected a finite number, got '0.1'"),
    ],
)
def test_crj_rejects_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "n_inputs": 1,
        "n_neurons": 5,
        "cycle_weight": 0.5,
        "jump_weight": 0.2,
        "jump_length": 2,
        "input_weight": 1.0,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=re.escape(message)):
        crj_reservoir(**args)


# --------------------------------------------------------------------------------------
# LDN


def test_ldn_continuous_matches_the_formula_by_hand() -> None:
    A, B = ldn_continuous(3, theta=2.0)
    A_hand = np.array([[-1, -1, -1], [3, -3, -3], [-5, 5, -5]]) / 2.0
    B_hand = np.array([[1], [-3], [5]]) / 2.0
    np.testing.assert_array_equal(A, A_hand)
    np.testing.assert_array_equal(B, B_hand)


def test_ldn_continuous_matches_the_formula_in_a_loop() -> None:
    d, theta = 7, 3.5
    A, B = ldn_continuous(d, theta)
    for i in range(d):
        assert B[i, 0] == (2 * i + 1) * (-1) ** i / theta
        for j in range(d):
            sign = -1 if i < j else (-1) ** (i - j + 1)
            assert A[i, j] == (2 * i + 1) * sign / theta


@pytest.mark.parametrize(("degree", "theta", "dt"), [(1, 1.0, 1.0), (4, 10.0, 1.0), (12, 3.0, 0.1)])
def test_ldn_discrete_matches_scipy_zero_order_hold(degree: int, theta: float, dt: float) -> None:
    A, B = ldn_continuous(degree, theta)
    Ad, Bd, *_ = cont2discrete((A, B, np.eye(degree), np.zeros((degree, 1))), dt, method="zoh")
    Ad_ours, Bd_ours = ldn_discrete(degree, theta, dt)
    np.testing.assert_allclose(Ad_ours, Ad, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Bd_ours, Bd, rtol=1e-12, atol=1e-12)
    # and the textbook closed form (A is invertible: its eigenvalues have negative real part)
    np.testing.assert_allclose(Ad_ours, expm(A * dt), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        Bd_ours, np.linalg.solve(A, (Ad - np.eye(degree)) @ B), rtol=1e-8, atol=1e-10
    )


@pytest.mark.parametrize(
    ("degree", "theta", "dt"), [(1, 1.0, 1.0), (8, 4.0, 1.0), (32, 20.0, 0.5), (256, 20.0, 1.0)]
)
def test_ldn_discrete_is_van_loans_block_exponential_bit_for_bit(
    degree: int, theta: float, dt: float
) -> None:
    # the literal method memrnn computed before it called scipy: one expm of [[A, B], [0, 0]] dt
    A, B = ldn_continuous(degree, theta)
    block = np.zeros((degree + 1, degree + 1))
    block[:degree, :degree] = A * dt
    block[:degree, degree:] = B * dt
    E = expm(block)
    Ad, Bd = ldn_discrete(degree, theta, dt)
    np.testing.assert_array_equal(Ad, E[:degree, :degree])
    np.testing.assert_array_equal(Bd, E[:degree, degree:])


def test_ldn_reservoir_is_one_block_per_channel() -> None:
    Ad, Bd = ldn_discrete(3, 5.0)
    r = ldn_reservoir(2, 3, 5.0)
    Z = np.zeros((3, 3))
    z = np.zeros((3, 1))
    np.testing.assert_array_equal(r.W, np.block([[Ad, Z], [Z, Ad]]))
    np.testing.assert_array_equal(r.U, np.block([[Bd, z], [z, Bd]]))
    assert r.activation == "identity"
    assert (r.n_inputs, r.n_neurons) == (2, 6)


def _smooth(T: int) -> np.ndarray:
    t = np.arange(T)
    return np.sin(2 * np.pi * t / 150) + 0.5 * np.sin(2 * np.pi * t / 97 + 1.0)


def test_ldn_states_decode_delayed_input_with_legendre_polynomials() -> None:
    # Voelker et al.: u(t - r theta) ~= sum_i P_i(2r - 1) m_i(t). A sign slip in A or B,
    # or the wrong discretisation, breaks this.
    d, theta, T, burn = 8, 40.0, 1500, 100
    x = _smooth(T)
    H = ldn_reservoir(1, d, theta).states(x[:, None])
    for r in (0.0, 0.5, 1.0):
        C = np.array([eval_legendre(i, 2 * r - 1) for i in range(d)])
        k = round(r * theta)
        err = np.abs(H[burn:] @ C - x[burn - k : T - k]).max()
        assert err < 0.06, (r, err)
    # the test can tell delays apart: the midpoint decoder is far from a 10-step-off target
    C = np.array([eval_legendre(i, 0.0) for i in range(d)])
    assert np.abs(H[burn:] @ C - x[burn - 30 : T - 30]).max() > 0.3


def test_ldn_states_give_delayed_input_by_least_squares() -> None:
    # Fit a linear readout for x_{t - theta/2} on one stretch, test on a later one.
    d, theta, T, burn = 10, 30.0, 2000, 100
    delay = 15
    x = _smooth(T) + 0.3 * np.cos(2 * np.pi * np.arange(T) / 211)
    H = ldn_reservoir(1, d, theta).states(x[:, None])
    target = x[burn - delay : T - delay]
    H = H[burn:]
    half = len(H) // 2
    coef, *_ = np.linalg.lstsq(H[:half], target[:half], rcond=None)
    test_err = np.abs(H[half:] @ coef - target[half:]).max()
    assert test_err < 0.02
    assert np.std(target[half:]) > 0.5  # the target is not nearly constant


# --------------------------------------------------------------------------------------
# random reservoir


@pytest.mark.parametrize(("rho", "sparsity"), [(0.9, 0.1), (0.5, 1.0), (1.2, 0.3), (0.1, 0.01)])
def test_random_reservoir_spectral_radius_and_row_density(rho: float, sparsity: float) -> None:
    m = 60
    r = random_reservoir(3, m, spectral_radius=rho, sparsity=sparsity, random_state=0)
    assert r.spectral_radius() == pytest.approx(rho, rel=1e-10)
    k = max(1, round(sparsity * m))
    np.testing.assert_array_equal(np.count_nonzero(r.W, axis=1), np.full(m, k))
    assert r.U.shape == (m, 3) and r.activation == "tanh"


def test_random_reservoir_input_scaling() -> None:
    r = random_reservoir(20, 200, input_scaling=0.25, random_state=1)
    assert np.std(r.U) == pytest.approx(0.25, rel=0.05)


def test_random_reservoir_is_deterministic_given_random_state() -> None:
    a = random_reservoir(2, 30, random_state=7)
    b = random_reservoir(2, 30, random_state=7)
    c = random_reservoir(2, 30, random_state=8)
    np.testing.assert_array_equal(a.U, b.U)
    np.testing.assert_array_equal(a.W, b.W)
    assert not np.array_equal(a.W, c.W)
    g1 = random_reservoir(2, 30, random_state=np.random.default_rng(3))
    g2 = random_reservoir(2, 30, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(g1.W, g2.W)


def test_random_reservoir_leaves_the_global_rng_alone() -> None:
    np.random.seed(123)  # noqa: NPY002 (the global state is what this test watches)
    before = np.random.get_state()[1].copy()  # type: ignore[index]  # noqa: NPY002
    random_reservoir(2, 30, random_state=None)
    random_reservoir(2, 30, random_state=5)
    after = np.random.get_state()[1]  # type: ignore[index]  # noqa: NPY002
    np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"spectral_radius": 0.0}, "spectral_radius: expected a finite number > 0, got 0.0"),
        ({"spectral_radius": float("inf")}, "spectral_radius: expected a finite number > 0"),
        ({"sparsity": 0.0}, "sparsity: expected a finite number in (0, 1], got 0.0"),
        ({"sparsity": 1.5}, "sparsity: expected a finite number in (0, 1], got 1.5"),
        ({"input_scaling": -1.0}, "input_scaling: expected a finite number > 0, got -1.0"),
        ({"random_state": "seed"}, "random_state: expected an int >= 0, a numpy.random.Generator"),
        ({"random_state": -1}, "random_state: expected an int >= 0, a numpy.random.Generator"),
        ({"n_neurons": 2.5}, "n_neurons: expected an int >= 1, got 2.5"),
    ],
)
def test_random_reservoir_rejects_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"n_inputs": 2, "n_neurons": 10, "random_state": 0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=re.escape(message)):
        random_reservoir(**args)
