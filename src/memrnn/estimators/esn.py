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

from memrnn.estimators.base import aligned_sequences, as_sequences
from memrnn.estimators.reservoir_params import ReservoirParams
from memrnn.validation import RandomState, check_float


class EchoStateNetwork(ReservoirParams, BaseEstimator):
    """An echo state network: states of a fixed reservoir, read out by ridge regression.

    The parameters are stored as given and checked by :meth:`fit`; the attributes are
    set by :meth:`fit`.

    Args:
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

    Attributes:
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
        Xs, Ys = aligned_sequences(X, Y)
        alpha = check_float("alpha", self.alpha, 0)
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
        Xs = as_sequences("X", X, "features", self.n_features_in_, "the fitted network")
        H = np.concatenate([self.reservoir_.states(x) for x in Xs])
        Y = np.asarray(self.readout_.predict(H), dtype=np.float64).reshape(
            H.shape[0], self.n_outputs_
        )
        ends = np.cumsum([x.shape[0] for x in Xs])[:-1]
        return list(np.split(Y, ends))
