"""The echo state network baseline: a fixed reservoir and a ridge-regression readout.

Jaeger and Haas (2004); in Paassen, Schulz, Hammer (2021) the ESN is the baseline that
"attempts to predict the desired output via linear regression from the reservoir state
h_t". Inputs and targets are lists of sequences of different lengths (or a 3-D array,
or one series; see ``memrnn.estimators.base``); every sequence starts from the zero
state, and every time step of every sequence (after the warm-up) is one training row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import overload

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge
from sklearn.utils import Tags
from sklearn.utils.validation import check_is_fitted

from memrnn.estimators.base import (
    Predictions,
    aligned_sequences,
    as_list,
    as_sequences,
    flat_targets,
    sequence_form,
    shaped_like,
)
from memrnn.estimators.conventions import AnyRandomState, pooled_r2, sequence_regressor_tags
from memrnn.estimators.reservoir_params import ReservoirParams
from memrnn.validation import check_float, check_int


class EchoStateNetwork(RegressorMixin, ReservoirParams, BaseEstimator):
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
        leak_rate: a in (0, 1], the leaky integration
            ``h_t = (1 - a) h_{t-1} + a sigma(U x_t + W h_{t-1} + b)`` (Jaeger et al.
            2007; reservoirpy's ``lr``); 1 is the paper's reservoir.
        bias: b, added to every neuron's input (0: none, the paper's reservoir).
        warmup: the first ``warmup`` steps of every sequence are left out of the
            readout's fit, while the state settles (reservoirpy's ``warmup``); they are
            still predicted. 0 fits every step.
        alpha: the ridge penalty of the readout (``sklearn.linear_model.Ridge``; the
            readout also fits an intercept).
        random_state: an int seed, a numpy Generator, a numpy RandomState or None; only
            the random reservoir draws numbers.

    Attributes:
        reservoir_: the :class:`~memrnn.reservoir.Reservoir` in use.
        readout_: the fitted ``Ridge``.
        n_features_in_: the input width n.
        n_outputs_: the output width L.

    ``score`` is R^2 over every time step of every sequence pooled (averaged over the
    outputs).

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
        leak_rate: float = 1.0,
        bias: float = 0.0,
        warmup: int = 0,
        alpha: float = 1e-5,
        random_state: AnyRandomState = None,
    ) -> None:
        self._store_params(locals())

    def __sklearn_tags__(self) -> Tags:
        return sequence_regressor_tags(super().__sklearn_tags__())

    def fit(self, X: object, Y: object) -> EchoStateNetwork:
        """Fit the readout on every time step (after the warm-up) of every sequence;
        returns self.

        Args:
            X: input sequences, each (T_i, n): a list, a 3-D array or one 2-D series.
            Y: target sequences, each (T_i, L), aligned with X step by step, in the same
                form; for one series also a 1-D array (T,), then ``predict`` gives (T,).
        """
        Xs, Ys = aligned_sequences(X, Y)
        alpha = check_float("alpha", self.alpha, 0)
        leak_rate = check_float("leak_rate", self.leak_rate, above=0, maximum=1)
        bias = check_float("bias", self.bias)
        warmup = check_int("warmup", self.warmup, 0)
        if all(x.shape[0] <= warmup for x in Xs):
            longest = max(x.shape[0] for x in Xs)
            raise ValueError(
                f"warmup: {warmup} steps leave nothing to fit, the longest sequence has {longest}"
            )
        reservoir = dataclasses.replace(
            self._build_reservoir(Xs[0].shape[1]), leak_rate=leak_rate, bias=bias
        )
        H = np.concatenate([reservoir.states(x)[warmup:] for x in Xs])
        readout = Ridge(alpha=alpha).fit(H, np.concatenate([y[warmup:] for y in Ys]))

        self.reservoir_ = reservoir
        self.readout_ = readout
        self.n_features_in_ = Xs[0].shape[1]
        self.n_outputs_ = Ys[0].shape[1]
        self._flat = flat_targets(X, Y)
        return self

    @overload
    def predict(self, X: np.ndarray) -> np.ndarray: ...

    @overload
    def predict(self, X: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    @overload
    def predict(self, X: object) -> Predictions: ...

    def predict(self, X: object) -> Predictions:
        """The outputs (T_i, L) for each input sequence (T_i, n), each from the zero state,
        in the form of X: a list for a list, (N, T, L) for (N, T, n), (T, L) for (T, n)."""
        check_is_fitted(self)
        Xs = as_sequences("X", X, "features", self.n_features_in_, type(self).__name__)
        H = np.concatenate([self.reservoir_.states(x) for x in Xs])
        Y = np.asarray(self.readout_.predict(H), dtype=np.float64).reshape(
            H.shape[0], self.n_outputs_
        )
        ends = np.cumsum([x.shape[0] for x in Xs])[:-1]
        return shaped_like(sequence_form(X), list(np.split(Y, ends)), self._flat)

    def score(self, X: object, y: object, sample_weight: None = None) -> float:
        """R^2 of the predictions for X against the targets y, over every time step of
        every sequence pooled (averaged over the outputs)."""
        if sample_weight is not None:
            raise ValueError("sample_weight: not supported, got an array")
        predictions = as_list(sequence_form(X), self.predict(X))
        return pooled_r2(aligned_sequences(X, y)[1], predictions)
