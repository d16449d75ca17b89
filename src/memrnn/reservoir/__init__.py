"""Reservoirs and the echo state network (Paassen, Schulz, Hammer 2021, section 2.5).

A reservoir (U, W, sigma) turns an input sequence into states
h_t = sigma(U x_t + W h_{t-1}); only a readout on the states is trained. Three fixed
constructions: random Gaussian, the cycle reservoir with jumps (Rodan and Tino 2012) and
the Legendre delay network (Voelker, Kajic, Eliasmith 2019). ``EchoStateNetwork`` is the
scikit-learn estimator that reads a reservoir's states out by ridge regression.
``ReservoirMemoryMachine`` and ``ReservoirStackMachine`` add a memory the classifiers
drive; ``DeepSequenceModel`` (GRU, stack RNN) and ``DeepStackMachine`` are the paper's
deep baselines, in PyTorch behind the same interfaces.
"""

from memrnn.reservoir.deep import DeepSequenceModel
from memrnn.reservoir.dsm import DeepStackMachine
from memrnn.reservoir.esn import EchoStateNetwork
from memrnn.reservoir.reservoirs import (
    Reservoir,
    crj_input_signs,
    crj_jumps,
    crj_reservoir,
    ldn_continuous,
    ldn_discrete,
    ldn_reservoir,
    pi_digits,
    random_reservoir,
)
from memrnn.reservoir.rmm import ReservoirMemoryMachine
from memrnn.reservoir.rsm import ReservoirStackMachine

__all__ = [
    "DeepSequenceModel",
    "DeepStackMachine",
    "EchoStateNetwork",
    "Reservoir",
    "ReservoirMemoryMachine",
    "ReservoirStackMachine",
    "crj_input_signs",
    "crj_jumps",
    "crj_reservoir",
    "ldn_continuous",
    "ldn_discrete",
    "ldn_reservoir",
    "pi_digits",
    "random_reservoir",
]
