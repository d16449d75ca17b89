"""Everything here is a scikit-learn estimator over lists of sequences (``fit`` and
``predict`` on (T_i, n) arrays), after Paassen, Schulz, Hammer (2021):

- ``EchoStateNetwork``: a fixed reservoir read out by ridge regression;
- ``ReservoirMemoryMachine``: Algorithm 3, an ESN that writes states to memory rows and
  recalls them;
- ``ReservoirStackMachine``: Algorithms 2 and 4, an ESN whose RBF-SVMs (``svm``) drive a
  stack like an LR(1) parser;
- ``DeepSequenceModel`` (GRU, superposition Stack-RNN) and ``DeepStackMachine``, the
  paper's deep baselines: networks from ``memrnn.models`` trained by Adam, one word per
  epoch, behind the same interfaces.

The reservoirs themselves are in ``memrnn.reservoir``. scikit-learn's
``check_estimator`` passes for each but the checks that assume independent rows or a
plain ``fit(X, y)`` (a ``DeepSequenceModel`` with ``loss="mse"``: the default binary
loss refuses the checks' real-valued targets); ``expected_failed_checks`` lists them
with their reason (:mod:`memrnn.estimators.checks`).
"""

from memrnn.estimators.checks import expected_failed_checks
from memrnn.estimators.deep import DeepSequenceModel
from memrnn.estimators.dsm import DeepStackMachine
from memrnn.estimators.esn import EchoStateNetwork
from memrnn.estimators.rmm import ReservoirMemoryMachine
from memrnn.estimators.rsm import ReservoirStackMachine

__all__ = [
    "DeepSequenceModel",
    "DeepStackMachine",
    "EchoStateNetwork",
    "ReservoirMemoryMachine",
    "ReservoirStackMachine",
    "expected_failed_checks",
]
