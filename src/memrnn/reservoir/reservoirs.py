"""Reservoirs (U, W, sigma) (Paassen, Schulz, Hammer 2021, Definition 3).

A reservoir with n inputs and m neurons maps an input sequence x_1 .. x_T to states

    h_t = sigma(U x_t + W h_{t-1}),    h_0 = 0 unless given,

with ``W[i, j]`` the weight from neuron j to neuron i (``h = W h_prev``). The paper's
three constructions are in ``memrnn.reservoir.constructions``. A leak rate a and a bias
b give the leaky-integrator form of Jaeger, Lukosevicius, Popovici, Siewert (2007), as
reservoirpy writes it:

    h_t = (1 - a) h_{t-1} + a sigma(U x_t + W h_{t-1} + b);

a = 1 and b = 0 (the defaults) are the paper's reservoir, computed as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from memrnn.validation import check_choice, check_float

Activation = Literal["tanh", "identity"]
_ACTIVATIONS = ("tanh", "identity")


def _frozen(a: np.ndarray) -> np.ndarray:
    out = np.array(a, dtype=np.float64)  # always a private copy
    out.setflags(write=False)
    return out


# --------------------------------------------------------------------------------------
# the reservoir


@dataclass(frozen=True, eq=False)
class Reservoir:
    """A reservoir (U, W, sigma) with n inputs and m neurons (paper, Definition 3).

    Attributes:
        U: (m, n) input weights.
        W: (m, m) recurrent weights; ``W[i, j]`` connects neuron j to neuron i.
        activation: ``"tanh"`` or ``"identity"``.
        leak_rate: a in (0, 1], the share of the new activation in each state (1: none
            of the old state is kept).
        bias: b, added to every neuron's input before the activation.

    The arrays are stored as read-only float64 copies, so a reservoir is an immutable
    value.
    """

    U: np.ndarray
    W: np.ndarray
    activation: Activation = "tanh"
    leak_rate: float = 1.0
    bias: float = 0.0

    def __post_init__(self) -> None:
        U = np.asarray(self.U)
        W = np.asarray(self.W)
        if U.ndim != 2 or U.shape[0] < 1 or U.shape[1] < 1:
            raise ValueError(f"U: expected a non-empty (m, n) matrix, got shape {U.shape}")
        m = U.shape[0]
        if W.shape != (m, m):
            raise ValueError(f"W: expected shape (m, m) = ({m}, {m}) to match U, got {W.shape}")
        for name, a in (("U", U), ("W", W)):
            if not np.issubdtype(a.dtype, np.number) or np.iscomplexobj(a):
                raise ValueError(f"{name}: expected real numbers, got dtype {a.dtype}")
            if not np.all(np.isfinite(a)):
                raise ValueError(f"{name}: contains NaN or inf")
        check_choice("activation", self.activation, _ACTIVATIONS)
        leak_rate = check_float("leak_rate", self.leak_rate, above=0, maximum=1)
        bias = check_float("bias", self.bias)
        # frozen dataclass: bypass __setattr__ to store the read-only copies
        object.__setattr__(self, "U", _frozen(U))
        object.__setattr__(self, "W", _frozen(W))
        object.__setattr__(self, "leak_rate", leak_rate)
        object.__setattr__(self, "bias", bias)

    @property
    def n_inputs(self) -> int:
        """n, the input dimension."""
        return int(self.U.shape[1])

    @property
    def n_neurons(self) -> int:
        """m, the state dimension."""
        return int(self.U.shape[0])

    def spectral_radius(self) -> float:
        """The largest absolute eigenvalue of W."""
        return float(np.max(np.abs(np.linalg.eigvals(self.W))))

    def _sigma(self, a: np.ndarray) -> np.ndarray:
        return np.tanh(a) if self.activation == "tanh" else a

    def _next(self, h: np.ndarray, pre: np.ndarray) -> np.ndarray:
        """The state after h, given ``pre = U x + W h``."""
        # a = 1 and b = 0 skip their arithmetic: the paper's reservoir stays bit for bit
        if self.bias != 0.0:
            pre = pre + self.bias
        if self.leak_rate == 1.0:
            return self._sigma(pre)
        return (1.0 - self.leak_rate) * h + self.leak_rate * self._sigma(pre)

    def _check_state(self, name: str, h: object) -> np.ndarray:
        out = np.asarray(h, dtype=np.float64)
        if out.shape != (self.n_neurons,):
            raise ValueError(f"{name}: expected shape (m,) = ({self.n_neurons},), got {out.shape}")
        if not np.all(np.isfinite(out)):
            raise ValueError(f"{name}: contains NaN or inf")
        return out

    def step(self, h: np.ndarray, x: np.ndarray) -> np.ndarray:
        """One step: ``sigma(U x + W h)`` (leaky and biased where set) for a state h (m,)
        and an input x (n,)."""
        h = self._check_state("h", h)
        xa = np.asarray(x, dtype=np.float64)
        if xa.shape != (self.n_inputs,):
            raise ValueError(f"x: expected shape (n,) = ({self.n_inputs},), got {xa.shape}")
        if not np.all(np.isfinite(xa)):
            raise ValueError("x: contains NaN or inf")
        return self._next(h, self.U @ xa + self.W @ h)

    def step_batch(self, H: np.ndarray, X: np.ndarray) -> np.ndarray:
        """One step for many states at once: rows ``sigma(U x_i + W h_i)``, (N, m); or
        for one state (m,) and input (n,), like ``step``.

        Unchecked, for inner loops whose inputs the caller has already validated.
        """
        return self._next(H, X @ self.U.T + H @ self.W.T)

    def states(self, X: np.ndarray, h0: np.ndarray | None = None) -> np.ndarray:
        """The states h_1 .. h_T (T, m) for inputs X (T, n), starting from h0 (default 0).

        Row t of the result is the state after reading X[t].
        """
        Xa = np.asarray(X, dtype=np.float64)
        if Xa.ndim != 2 or Xa.shape[1] != self.n_inputs:
            raise ValueError(f"X: expected shape (T, n) with n = {self.n_inputs}, got {Xa.shape}")
        if not np.all(np.isfinite(Xa)):
            raise ValueError("X: contains NaN or inf")
        h = np.zeros(self.n_neurons) if h0 is None else self._check_state("h0", h0)
        drive = Xa @ self.U.T  # all input terms in one product; only W h is sequential
        out = np.empty((Xa.shape[0], self.n_neurons))
        W = self.W
        for t in range(Xa.shape[0]):
            h = self._next(h, drive[t] + W @ h)
            out[t] = h
        return out
