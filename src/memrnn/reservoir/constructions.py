"""The three reservoir constructions of Paassen, Schulz, Hammer (2021).

Each builds a :class:`~memrnn.reservoir.Reservoir` (U, W, sigma):

- :func:`random_reservoir`: Gaussian U and a sparse Gaussian W rescaled to a spectral radius.
- :func:`crj_reservoir`: the cycle reservoir with jumps of Rodan and Tino (2012).
- :func:`ldn_reservoir`: the Legendre delay network, the linear system of the Legendre
  memory unit (Voelker, Kajic, Eliasmith 2019) discretised by zero-order hold.

Conventions pinned here (the tests write them out on small matrices):

- ``W[i, j]`` is the weight from neuron j to neuron i (``h = W h_prev``).
- CRJ cycle: neuron i feeds neuron i+1, and neuron m-1 feeds neuron 0:
  ``W[(i + 1) % m, i] = cycle_weight``.
- CRJ jumps (Rodan and Tino's rule, 0-based): two-way links between neurons
  0, l, 2l, ...: ``{k l, (k+1) l}`` for every ``(k+1) l < m``, and, when l divides m,
  the closing link ``{m - l, 0}``; ``W[a, b] = W[b, a] = jump_weight`` for each link.
  With m = 5, l = 2 that is {0, 2} and {2, 4}; with m = 6, l = 2 it is {0, 2}, {2, 4},
  {4, 0}.
- CRJ input signs: ``U[i, j] = +input_weight`` if the (i n + j)-th digit of pi is 5..9
  and ``-input_weight`` if it is 0..4, counting the digits of 3.14159... from the leading
  3 (index 0), row by row (neuron-major). This is Rodan and Tino's pi rule in the order
  of Paassen et al.'s own CRJ code.
- LDN: neurons ``c * degree .. (c + 1) * degree - 1`` hold the Legendre coefficients of
  input channel c (one independent copy of the system per channel).
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.signal

from memrnn.reservoir.reservoirs import Reservoir
from memrnn.validation import RandomState, check_float, check_int, check_random_state

# --------------------------------------------------------------------------------------
# random Gaussian reservoir


def random_reservoir(
    n_inputs: int,
    n_neurons: int,
    *,
    spectral_radius: float = 0.9,
    sparsity: float = 0.1,
    input_scaling: float = 1.0,
    random_state: RandomState = None,
) -> Reservoir:
    """A tanh reservoir with Gaussian weights ("rand" in the paper).

    U has i.i.d. N(0, input_scaling^2) entries. Each row of W has
    ``max(1, round(sparsity * n_neurons))`` nonzero N(0, 1) entries at random columns,
    and W is then rescaled so that its spectral radius is exactly ``spectral_radius``.

    Args:
        n_inputs: n.
        n_neurons: m.
        spectral_radius: the largest absolute eigenvalue of W (> 0).
        sparsity: the fraction of nonzero entries in each row of W, in (0, 1] (the name
            and meaning of Paassen et al.'s code; 1 is a dense W).
        input_scaling: the standard deviation of the entries of U (> 0).
        random_state: an int seed, a numpy Generator, or None for fresh entropy.
    """
    n = check_int("n_inputs", n_inputs, 1)
    m = check_int("n_neurons", n_neurons, 1)
    rho = check_float("spectral_radius", spectral_radius, above=0)
    density = check_float("sparsity", sparsity, above=0, maximum=1)
    scale = check_float("input_scaling", input_scaling, above=0)
    rng = check_random_state("random_state", random_state)

    U = rng.standard_normal((m, n)) * scale
    k = max(1, round(density * m))
    # k distinct random columns per row: the first k of a random permutation of each row
    cols = np.argsort(rng.random((m, m)), axis=1)[:, :k]
    W = np.zeros((m, m))
    W[np.arange(m)[:, None], cols] = rng.standard_normal((m, k))
    # Every neuron then has an incoming edge, so the graph has a cycle and W is not
    # nilpotent: its spectral radius is nonzero (almost surely) and the division is safe.
    W *= rho / np.max(np.abs(np.linalg.eigvals(W)))
    return Reservoir(U, W, "tanh")


# --------------------------------------------------------------------------------------
# cycle reservoir with jumps


@functools.lru_cache(maxsize=8)
def pi_digits(count: int) -> str:
    """The first ``count`` decimal digits of pi, leading 3 included: ``"31415..."``.

    Exact integer arithmetic (Machin's formula with guard digits); no floating point.

    >>> pi_digits(10)
    '3141592653'
    """
    count = check_int("count", count, 1)
    scale = 10 ** (count + 10)  # ten guard digits absorb the truncation of each term

    def arctan_inv(x: int) -> int:  # arctan(1/x) * scale
        total = term = scale // x
        x2, k, sign = x * x, 1, 1
        while term:
            term //= x2
            k += 2
            sign = -sign
            total += sign * (term // k)
        return total

    pi_scaled = 4 * (4 * arctan_inv(5) - arctan_inv(239))
    # str() of an int over 4300 digits is refused (CPython's int_max_str_digits), so
    # print it in chunks of 1000 digits, least significant first
    chunks = []
    while pi_scaled:
        pi_scaled, low = divmod(pi_scaled, 10**1000)
        chunks.append(f"{low:01000d}")
    return "".join(reversed(chunks)).lstrip("0")[:count]


def crj_input_signs(n_inputs: int, n_neurons: int) -> np.ndarray:
    """The (m, n) sign pattern of a CRJ's input weights: +1 for a pi digit 5..9, else -1.

    Digit ``i * n + j`` of 3.14159... (index 0 is the leading 3) gives ``U[i, j]``.
    Deterministic and aperiodic (pi is irrational).

    >>> crj_input_signs(2, 3).astype(int).tolist()
    [[-1, -1], [-1, -1], [1, 1]]
    """
    n = check_int("n_inputs", n_inputs, 1)
    m = check_int("n_neurons", n_neurons, 1)
    digits = np.frombuffer(pi_digits(m * n).encode("ascii"), dtype=np.uint8) - ord("0")
    return np.where(digits >= 5, 1.0, -1.0).reshape(m, n)


def crj_jumps(n_neurons: int, jump_length: int) -> list[tuple[int, int]]:
    """The two-way jump links of a CRJ, as (a, b) neuron pairs (Rodan and Tino's rule).

    >>> crj_jumps(5, 2)
    [(0, 2), (2, 4)]
    >>> crj_jumps(6, 2)
    [(0, 2), (2, 4), (4, 0)]
    """
    m = check_int("n_neurons", n_neurons, 1)
    ell = check_int("jump_length", jump_length, 1)
    # A jump between neurons that are neighbours on the cycle (l = 1 or l = m - 1) would
    # land on a cycle weight, and l = m would be a self-loop: only 2 <= l <= m - 2 is a
    # jump.
    if not 2 <= ell <= m - 2:
        raise ValueError(
            f"jump_length: must lie in [2, n_neurons - 2] = [2, {m - 2}] so that jumps do not "
            f"coincide with cycle edges, got {ell}"
        )
    links = [(k * ell, (k + 1) * ell) for k in range(m // ell) if (k + 1) * ell < m]
    if m % ell == 0:
        links.append((m - ell, 0))
    return links


def crj_reservoir(
    n_inputs: int,
    n_neurons: int,
    *,
    cycle_weight: float,
    jump_weight: float,
    jump_length: int,
    input_weight: float,
) -> Reservoir:
    """A tanh cycle reservoir with jumps (Rodan and Tino 2012); no randomness.

    ``W[(i + 1) % m, i] = cycle_weight`` (a one-way cycle 0 -> 1 -> ... -> m-1 -> 0),
    ``W[a, b] = W[b, a] = jump_weight`` for each link of :func:`crj_jumps`, and
    ``U = input_weight * crj_input_signs(n, m)``.

    >>> r = crj_reservoir(1, 5, cycle_weight=0.5, jump_weight=0.2, jump_length=2,
    ...                   input_weight=1.0)
    >>> r.W[2].tolist()  # neuron 2 hears neuron 1 (cycle) and neurons 0 and 4 (jumps)
    [0.2, 0.5, 0.0, 0.0, 0.2]
    >>> r.U.ravel().tolist()
    [-1.0, -1.0, -1.0, -1.0, 1.0]

    Args:
        n_inputs: n.
        n_neurons: m (at least 4, so that a jump exists).
        cycle_weight: r_c, the weight of every cycle edge.
        jump_weight: r_j, the weight of every jump (0 gives a simple cycle reservoir).
        jump_length: l, in [2, m - 2].
        input_weight: v > 0, the magnitude of every input weight.
    """
    n = check_int("n_inputs", n_inputs, 1)
    m = check_int("n_neurons", n_neurons, 1)
    r_c = check_float("cycle_weight", cycle_weight)
    r_j = check_float("jump_weight", jump_weight)
    v = check_float("input_weight", input_weight, above=0)
    links = crj_jumps(m, jump_length)

    W = np.zeros((m, m))
    idx = np.arange(m)
    W[(idx + 1) % m, idx] = r_c
    for a, b in links:
        W[a, b] = W[b, a] = r_j
    return Reservoir(v * crj_input_signs(n, m), W, "tanh")


# --------------------------------------------------------------------------------------
# Legendre delay network


def ldn_continuous(degree: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """The LMU's continuous-time system ``dm/dt = A m + B u`` for one input channel.

    ``A[i, j] = (2i + 1) / theta * (-1 if i < j else (-1) ** (i - j + 1))`` and
    ``B[i] = (2i + 1) (-1) ** i / theta`` (Voelker et al. 2019, Eq. 2, with theta moved
    into A and B). Returns A (d, d) and B (d, 1). Its state holds the coefficients of
    the shifted Legendre polynomials that best fit u over the window [t - theta, t]:
    ``u(t - r theta) ~= sum_i P_i(2 r - 1) m_i(t)`` for r in [0, 1].
    """
    d = check_int("degree", degree, 1)
    th = check_float("theta", theta, above=0)
    i = np.arange(d)[:, None]
    j = np.arange(d)[None, :]
    A = (2 * i + 1) * np.where(i < j, -1.0, (-1.0) ** (i - j + 1))
    B = (2 * np.arange(d) + 1) * (-1.0) ** np.arange(d)
    return A / th, B[:, None] / th


def ldn_discrete(degree: int, theta: float, dt: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ldn_continuous` discretised by zero-order hold with step ``dt``.

    The input is held constant over each step: ``m_t = Ad m_{t-1} + Bd u_t`` with
    ``Ad = expm(A dt)`` and ``Bd = int_0^dt expm(A s) ds B``, both read off one matrix
    exponential of the block matrix ``[[A, B], [0, 0]] dt`` (Van Loan's method), as
    ``scipy.signal.cont2discrete(..., method="zoh")`` computes them.
    """
    A, B = ldn_continuous(degree, theta)
    step = check_float("dt", dt, above=0)
    d = A.shape[0]
    Ad, Bd, *_ = scipy.signal.cont2discrete((A, B, np.eye(d), np.zeros((d, 1))), step, "zoh")
    return np.asarray(Ad, dtype=np.float64), np.asarray(Bd, dtype=np.float64)


def ldn_reservoir(n_inputs: int, degree: int, theta: float, dt: float = 1.0) -> Reservoir:
    """A Legendre delay network: one LDN of ``degree`` states per input channel.

    A linear reservoir (identity activation) with ``n_inputs * degree`` neurons,
    ``W = kron(I_n, Ad)`` and ``U = kron(I_n, Bd)`` (channel c owns neurons
    ``c * degree .. (c + 1) * degree - 1``). Its states remember the last ``theta / dt``
    steps of each channel: a linear readout recovers delayed inputs (see
    :func:`ldn_continuous`).

    Args:
        n_inputs: n.
        degree: d, the number of Legendre coefficients per channel.
        theta: the length of the remembered window, in the same time unit as dt.
        dt: the time between two inputs.
    """
    n = check_int("n_inputs", n_inputs, 1)
    Ad, Bd = ldn_discrete(degree, theta, dt)
    eye = np.eye(n)
    return Reservoir(np.kron(eye, Bd), np.kron(eye, Ad), "identity")
