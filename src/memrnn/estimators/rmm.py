"""The reservoir memory machine of Paassen and Schulz (2020), Algorithm 3 of Paassen,
Schulz and Hammer (2021).

An echo state network with K memory rows. A classifier c on the state h_t names an
address a_t (0: none). The first time an address is named, h_t is written there; every
later time, h_t is replaced by what was written, so the reservoir continues from a past
state. The output g(h_t) is a ridge regression.

Training needs the desired addresses (a teacher), as in the paper: the states are run
with those addresses, c learns to name them from h_t, and g learns the outputs from the
states the teacher's memory produced.
"""

from __future__ import annotations

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
    sequence_form,
    shaped_like,
)
from memrnn.estimators.conventions import AnyRandomState, pooled_r2, sequence_regressor_tags
from memrnn.estimators.reservoir_params import ReservoirParams
from memrnn.estimators.svm import fit_classifier
from memrnn.reservoir.reservoirs import Reservoir
from memrnn.validation import check_float, check_int


def memory_states(
    reservoir: Reservoir, x: np.ndarray, addresses: Sequence[int], rows: int
) -> np.ndarray:
    """The states h_1 .. h_T of Algorithm 3 when the addresses a_t are given, (T, m)."""
    memory: dict[int, np.ndarray] = {}
    h = np.zeros(reservoir.n_neurons)
    states = np.zeros((x.shape[0], reservoir.n_neurons))
    for t, a in enumerate(addresses):
        h = reservoir.step(h, x[t])
        if not 0 <= a <= rows:
            raise ValueError(f"addresses: {a} at step {t} is outside 0 .. {rows}")
        if a > 0:
            if a in memory:
                h = memory[a]  # recall: continue from the stored state
            else:
                memory[a] = h  # first visit: write
        states[t] = h
    return states


def _check_addresses(i: int, addresses: object, rows: int) -> None:
    """ValueError naming ``addresses[i]`` unless it is a 1-d sequence of ints in 0 .. rows."""
    a = np.asarray(addresses) if isinstance(addresses, list | tuple | np.ndarray) else None
    if a is None or a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"addresses[{i}]: expected a sequence of int addresses, got {addresses!r}")
    outside = np.flatnonzero((a < 0) | (a > rows))
    if outside.size:
        t = int(outside[0])
        raise ValueError(f"addresses[{i}]: {a[t]} at step {t} is outside 0 .. {rows}")


class ReservoirMemoryMachine(RegressorMixin, ReservoirParams, BaseEstimator):
    """Reservoir memory machine: an ESN that can write states to K rows and recall them.

    The reservoir hyperparameters are those of ``EchoStateNetwork``.

    Args:
        rows: K, the number of memory rows (addresses 1 .. K).
        C: regularisation of the SVM that names addresses.
        alpha: regularisation of the ridge output.
        random_state: an int seed, a numpy Generator, a numpy RandomState or None; only
            the random reservoir draws numbers.

    Inputs are a list of (T_i, n) arrays, a 3-D array or one 2-D series (see
    ``memrnn.estimators.base``); ``predict`` answers in the same form. ``score`` is R^2
    over every time step of every sequence pooled (averaged over the outputs).
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
        rows: int = 1,
        C: float = 100.0,
        alpha: float = 1e-5,
        random_state: AnyRandomState = None,
    ) -> None:
        self._store_params(locals())

    def __sklearn_tags__(self) -> Tags:
        return sequence_regressor_tags(super().__sklearn_tags__())

    def fit(
        self, X: object, Y: object, *, addresses: Sequence[Sequence[int]]
    ) -> ReservoirMemoryMachine:
        """Fit c on the teacher's addresses and g on the outputs; returns self.

        Args:
            X: input sequences, each (T_i, n).
            Y: target sequences, each (T_i, L).
            addresses: the desired address a_t in 0 .. rows for every step.
        """
        xs = as_sequences("X", X, "features")
        ys = as_sequences("Y", Y, "outputs")
        if sequence_form(X) == "series" and isinstance(addresses, np.ndarray):
            addresses = [addresses]  # one series, its addresses one 1-D array
        rows = check_int("rows", self.rows, 1)
        C = check_float("C", self.C, above=0)
        alpha = check_float("alpha", self.alpha, 0)
        if not isinstance(addresses, list | tuple):
            raise ValueError(
                f"addresses: expected a list of address sequences, one per sequence of X, "
                f"got {type(addresses).__name__}"
            )
        if len(ys) != len(xs) or len(addresses) != len(xs):
            raise ValueError(
                f"Y and addresses: need one per sequence of X ({len(xs)}), got {len(ys)} "
                f"and {len(addresses)}"
            )
        for i, (x, y, a) in enumerate(zip(xs, ys, addresses, strict=True)):
            _check_addresses(i, a, rows)
            if y.shape[0] != x.shape[0] or len(a) != x.shape[0]:
                raise ValueError(
                    f"sequence {i}: X has {x.shape[0]} steps, Y {y.shape[0]}, addresses {len(a)}"
                )
        reservoir = self._build_reservoir(xs[0].shape[1])
        states = [memory_states(reservoir, x, a, rows) for x, a in zip(xs, addresses, strict=True)]
        # c sees h_t before that step's recall replaces it (line 6), g sees it after (14)
        before = [
            reservoir.step_batch(np.vstack([np.zeros(reservoir.n_neurons), after[:-1]]), x)
            for x, after in zip(xs, states, strict=True)
        ]
        targets = np.concatenate([np.asarray(a, dtype=np.int64) for a in addresses])
        self.reservoir_ = reservoir
        self.n_features_in_ = xs[0].shape[1]
        self.n_outputs_ = ys[0].shape[1]
        self.c_ = fit_classifier(np.concatenate(before), targets, C)
        self.g_ = Ridge(alpha=alpha).fit(np.concatenate(states), np.concatenate(ys))
        return self

    @overload
    def predict(self, X: np.ndarray) -> np.ndarray: ...

    @overload
    def predict(self, X: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    @overload
    def predict(self, X: object) -> Predictions: ...

    def predict(self, X: object) -> Predictions:
        """The outputs (T_i, L) of Algorithm 3 for each input sequence, in the form of X."""
        check_is_fitted(self)
        xs = as_sequences("X", X, "features", self.n_features_in_, type(self).__name__)
        outputs = []
        for x in xs:
            memory: dict[int, np.ndarray] = {}
            h = np.zeros(self.reservoir_.n_neurons)
            states = np.zeros((x.shape[0], self.reservoir_.n_neurons))
            for t in range(x.shape[0]):
                h = self.reservoir_.step(h, x[t])
                a = int(self.c_.predict_rows(h[None])[0])
                if a > 0:
                    if a in memory:
                        h = memory[a]
                    else:
                        memory[a] = h
                states[t] = h
            outputs.append(np.asarray(self.g_.predict(states)).reshape(len(x), self.n_outputs_))
        return shaped_like(sequence_form(X), outputs, flat=False)

    def score(self, X: object, y: object, sample_weight: None = None) -> float:
        """R^2 of the predictions for X against the targets y, over every time step of
        every sequence pooled (averaged over the outputs)."""
        if sample_weight is not None:
            raise ValueError("sample_weight: not supported, got an array")
        predictions = as_list(sequence_form(X), self.predict(X))
        return pooled_r2(aligned_sequences(X, y)[1], predictions)
