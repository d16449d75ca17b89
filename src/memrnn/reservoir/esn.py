"""The echo state network baseline: a fixed reservoir and a ridge-regression readout.

Jaeger and Haas (2004); in Paassen, Schulz, Hammer (2021) the ESN is the baseline that
"attempts to predict the desired output via linear regression from the reservoir state
h_t". Inputs and targets are lists of sequences of different lengths; every sequence
starts from the zero state, and every time step of every sequence is one training row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.linear_model import Ridge
from sklearn.utils.validation import check_is_fitted

from memrnn.reservoir.reservoirs import (
    RandomState,
    Reservoir,
    _check_float,
    _check_int,
    crj_reservoir,
    ldn_reservoir,
    random_reservoir,
)

_KINDS = ("ldn", "crj", "random")


def _as_sequences(
    name: str, seqs: object, what: str, n_features: int | None = None, source: str = ""
) -> list[np.ndarray]:
    """Check a list of 2-D float sequences; raise ValueError naming ``name[i]`` if bad.

    ``what`` names the width in messages ("features", "outputs"). ``n_features``: the
    required width, described as ``source`` in messages; None takes it from ``seqs[0]``.
    """
    if isinstance(seqs, np.ndarray) and seqs.ndim == 3:
        seqs = list(seqs)  # a (N, T, n) batch of equal-length sequences
    if not isinstance(seqs, list | tuple):
        raise ValueError(
            f"{name}: expected a list of (T, {what[0]}) arrays, one per sequence, "
            f"got {type(seqs).__name__}"
            + (f" of shape {seqs.shape}" if isinstance(seqs, np.ndarray) else "")
        )
    if len(seqs) == 0:
        raise ValueError(f"{name}: expected at least one sequence, got an empty list")
    out = []
    for i, s in enumerate(seqs):
        try:
            a = np.asarray(s, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name}[{i}]: cannot be read as a float array ({err})") from None
        if a.ndim != 2:
            raise ValueError(
                f"{name}[{i}]: expected a 2-D (T, {what[0]}) array, got shape {a.shape}"
                + (" (use .reshape(-1, 1) for one channel)" if a.ndim == 1 else "")
            )
        if a.shape[0] == 0:
            raise ValueError(f"{name}[{i}]: is empty (0 time steps)")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name}[{i}]: contains NaN or inf")
        if n_features is None:
            n_features, source = a.shape[1], f"{name}[0]"
        elif a.shape[1] != n_features:
            raise ValueError(f"{name}[{i}]: has {a.shape[1]} {what} but {source} has {n_features}")
        out.append(a)
    return out


def store_params(estimator: object, params: dict[str, object]) -> None:
    """Keep every ``__init__`` argument unchanged, as scikit-learn's contract asks;
    called as ``self._store_params(locals())``."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


class ReservoirParams:
    """Builds the reservoir that an estimator's hyperparameters describe.

    Shared by the ESN and the reservoir stack machine, whose ``__init__`` each list the
    same reservoir hyperparameters (scikit-learn reads them from the signature).
    """

    reservoir: str
    n_neurons: int
    spectral_radius: float
    sparsity: float
    input_scaling: float
    cycle_weight: float
    jump_weight: float
    jump_length: int
    input_weight: float
    degree: int | None
    theta: float
    dt: float
    random_state: RandomState

    _store_params = store_params

    def _build_reservoir(self, n_inputs: int) -> Reservoir:
        if self.reservoir == "random":
            return random_reservoir(
                n_inputs,
                self.n_neurons,
                spectral_radius=self.spectral_radius,
                sparsity=self.sparsity,
                input_scaling=self.input_scaling,
                random_state=self.random_state,
            )
        if self.reservoir == "crj":
            return crj_reservoir(
                n_inputs,
                self.n_neurons,
                cycle_weight=self.cycle_weight,
                jump_weight=self.jump_weight,
                jump_length=self.jump_length,
                input_weight=self.input_weight,
            )
        if self.reservoir == "ldn":
            if self.degree is None:
                m = _check_int("n_neurons", self.n_neurons)
                if m < n_inputs:
                    raise ValueError(
                        f"n_neurons: an LDN needs at least one neuron per input channel, "
                        f"got {m} neurons for {n_inputs} channels"
                    )
                degree = m // n_inputs
            else:
                degree = _check_int("degree", self.degree)
            return ldn_reservoir(n_inputs, degree, self.theta, self.dt)
        raise ValueError(f"reservoir: expected one of {_KINDS}, got {self.reservoir!r}")


class EchoStateNetwork(ReservoirParams, BaseEstimator):
    """An echo state network: states of a fixed reservoir, read out by ridge regression.

    Parameters (stored as given; checked by :meth:`fit`):
        reservoir: ``"ldn"`` (Legendre delay network), ``"crj"`` (cycle reservoir with
            jumps) or ``"random"`` (sparse Gaussian).
        n_neurons: the number of neurons m. For ``"ldn"`` with n input channels the
            degree per channel is ``degree`` if given, else ``n_neurons // n``.
        spectral_radius, sparsity, input_scaling: of the random reservoir
            (:func:`~memrnn.reservoir.random_reservoir`).
        cycle_weight, jump_weight, jump_length, input_weight: of the CRJ
            (:func:`~memrnn.reservoir.crj_reservoir`). The defaults are the paper's
            Figure 1 example (cycle weight 0.5, jump length 2, input weight 1) with jump
            weight 0.25.
        degree, theta, dt: of the LDN (:func:`~memrnn.reservoir.ldn_reservoir`).
        alpha: the ridge penalty of the readout (``sklearn.linear_model.Ridge``; the
            readout also fits an intercept).
        random_state: an int seed, a numpy Generator or None; only the random reservoir
            draws numbers.

    Attributes after :meth:`fit`:
        reservoir_: the :class:`~memrnn.reservoir.Reservoir` in use.
        readout_: the fitted ``Ridge``.
        n_features_in_: the input width n.
        n_outputs_: the output width L.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.uniform(-1, 1, (50, 1)) for _ in range(4)]
    >>> Y = [np.vstack([np.zeros((1, 1)), x[:-1]]) for x in X]  # delayed by one step
    >>> esn = EchoStateNetwork("ldn", n_neurons=8, theta=4.0).fit(X, Y)
    >>> bool(np.abs(esn.predict(X)[0] - Y[0]).max() < 1e-2)
    True
    """

    def __init__(
        self,
        reservoir: str = "ldn",
        n_neurons: int = 256,
        *,
        spectral_radius: float = 0.9,
        sparsity: float = 0.1,
        input_scaling: float = 1.0,
        cycle_weight: float = 0.5,
        jump_weight: float = 0.25,
        jump_length: int = 2,
        input_weight: float = 1.0,
        degree: int | None = None,
        theta: float = 20.0,
        dt: float = 1.0,
        alpha: float = 1e-5,
        random_state: RandomState = None,
    ) -> None:
        self._store_params(locals())

    def fit(self, X: Sequence[np.ndarray], Y: Sequence[np.ndarray]) -> EchoStateNetwork:
        """Fit the readout on every time step of every sequence; returns self.

        Args:
            X: input sequences, each (T_i, n).
            Y: target sequences, each (T_i, L), aligned with X step by step.
        """
        Xs = _as_sequences("X", X, "features")
        Ys = _as_sequences("Y", Y, "outputs")
        if len(Ys) != len(Xs):
            raise ValueError(f"Y: has {len(Ys)} sequences but X has {len(Xs)}")
        for i, (x, y) in enumerate(zip(Xs, Ys, strict=True)):
            if y.shape[0] != x.shape[0]:
                raise ValueError(f"Y[{i}]: has {y.shape[0]} time steps but X[{i}] has {x.shape[0]}")
        alpha = _check_float("alpha", self.alpha, nonnegative=True)
        reservoir = self._build_reservoir(Xs[0].shape[1])
        H = np.concatenate([reservoir.states(x) for x in Xs])
        readout = Ridge(alpha=alpha).fit(H, np.concatenate(Ys))

        self.reservoir_ = reservoir
        self.readout_ = readout
        self.n_features_in_ = Xs[0].shape[1]
        self.n_outputs_ = Ys[0].shape[1]
        return self

    def predict(self, X: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The outputs (T_i, L) for each input sequence (T_i, n), each from the zero state."""
        check_is_fitted(self)
        Xs = _as_sequences("X", X, "features", self.n_features_in_, "the fitted network")
        H = np.concatenate([self.reservoir_.states(x) for x in Xs])
        Y = np.asarray(self.readout_.predict(H), dtype=np.float64).reshape(
            H.shape[0], self.n_outputs_
        )
        ends = np.cumsum([x.shape[0] for x in Xs])[:-1]
        return list(np.split(Y, ends))
