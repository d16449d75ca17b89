"""The generalisation matrix: every model on every task, trained on short inputs and
tested on longer ones, after the protocol of Delétang et al. (2023), *Neural Networks and
the Chomsky Hierarchy*.

One idea per module:

- ``protocol``: the models, the tasks' levels in the Chomsky hierarchy, who reads what;
- ``config``: the settings of one cell;
- ``profiles``: the runs of each profile (``SCALES``);
- ``run``: one cell trained and scored at every length (range evaluation);
- ``tables``, ``findings``, ``figures``: the report;
- ``experiment``: ``Matrix``, which the registry finds.
"""

from memrnn.experiments.matrix.config import MatrixConfig
from memrnn.experiments.matrix.experiment import Matrix
from memrnn.experiments.matrix.profiles import SCALES
from memrnn.experiments.matrix.protocol import LEVELS, MODELS, protocol

__all__ = ["LEVELS", "MODELS", "SCALES", "Matrix", "MatrixConfig", "protocol"]
