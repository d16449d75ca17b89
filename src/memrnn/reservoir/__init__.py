"""Reservoirs (Paassen, Schulz, Hammer 2021, section 2.5).

A reservoir (U, W, sigma) turns an input sequence into states
h_t = sigma(U x_t + W h_{t-1}); only a readout on the states is trained. Three fixed
constructions: random Gaussian, the cycle reservoir with jumps (Rodan and Tino 2012) and
the Legendre delay network (Voelker, Kajic, Eliasmith 2019). The estimators that read
reservoirs out (the echo state network, the reservoir memory and stack machines) are in
``memrnn.estimators``.
"""

from memrnn.reservoir.constructions import (
    crj_input_signs,
    crj_jumps,
    crj_reservoir,
    ldn_continuous,
    ldn_discrete,
    ldn_reservoir,
    pi_digits,
    random_reservoir,
)
from memrnn.reservoir.reservoirs import Reservoir

__all__ = [
    "Reservoir",
    "crj_input_signs",
    "crj_jumps",
    "crj_reservoir",
    "ldn_continuous",
    "ldn_discrete",
    "ldn_reservoir",
    "pi_digits",
    "random_reservoir",
]
