"""The reservoir hyperparameters the reservoir estimators share (Paassen, Schulz, Hammer
2021, section 2.5): which construction, its size and its settings."""

from __future__ import annotations

import numpy as np

from memrnn.estimators.base import store_params
from memrnn.estimators.conventions import AnyRandomState, as_generator
from memrnn.reservoir.constructions import crj_reservoir, ldn_reservoir, random_reservoir
from memrnn.reservoir.reservoirs import Reservoir
from memrnn.validation import (
    check_choice,
    check_fits_in_memory,
    check_float,
    check_int,
    check_random_state,
)

_KINDS = ("ldn", "crj", "random")


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
    random_state: AnyRandomState

    _store_params = store_params

    def _check_reservoir_params(self) -> None:
        """Check every reservoir hyperparameter, those of the kinds not chosen too: a NaN
        or a size below 1 is a mistake whichever reservoir would read it."""
        check_choice("reservoir", self.reservoir, _KINDS)
        n = check_int("n_neurons", self.n_neurons, 1)
        check_fits_in_memory("n_neurons", n, 8 * n * n)  # the recurrent matrix, dense
        check_float("spectral_radius", self.spectral_radius, above=0)
        check_float("sparsity", self.sparsity, above=0, maximum=1)
        check_float("input_scaling", self.input_scaling, above=0)
        check_float("cycle_weight", self.cycle_weight)
        check_float("jump_weight", self.jump_weight)
        check_int("jump_length", self.jump_length, 1)  # a CRJ's range is crj_jumps's to check
        check_float("input_weight", self.input_weight, above=0)
        if self.degree is not None:
            check_int("degree", self.degree, 1)
        check_float("theta", self.theta, above=0)
        check_float("dt", self.dt, above=0)
        if not isinstance(self.random_state, np.random.RandomState):  # drawn from once, later
            check_random_state("random_state", self.random_state)

    def _build_reservoir(self, n_inputs: int) -> Reservoir:
        self._check_reservoir_params()
        if self.reservoir == "random":
            return random_reservoir(
                n_inputs,
                self.n_neurons,
                spectral_radius=self.spectral_radius,
                sparsity=self.sparsity,
                input_scaling=self.input_scaling,
                random_state=as_generator("random_state", self.random_state),
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
        if self.degree is None:  # the LDN, the one kind left
            m = check_int("n_neurons", self.n_neurons, 1)
            if m < n_inputs:
                raise ValueError(
                    f"n_neurons: an LDN needs at least one neuron per input channel, "
                    f"got {m} neurons for {n_inputs} channels"
                )
            degree = m // n_inputs
        else:
            degree = check_int("degree", self.degree, 1)
        return ldn_reservoir(n_inputs, degree, self.theta, self.dt)
