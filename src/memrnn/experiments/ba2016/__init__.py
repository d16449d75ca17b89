"""Ba, Hinton, Mnih, Leibo, Ionescu (2016), *Using Fast Weights to Attend to the Recent
Past*, section 4.1: associative retrieval, Table 1.

Four recurrent models with R units read ``c9k8j3f1??c`` and name the digit stored with
the query key: the Fast Weights RNN, an IRNN, an LSTM and an LSTM with attention over its
past states (A-LSTM), each with the paper's readout (a 100-unit ReLU layer, then a softmax
over the 10 digits). All runs of a profile share one set of splits (100k / 10k / 20k),
written once under the run's data folder; validation error is logged during training (the
learning curves) and the table reports the test error of the final model.

One idea per module:

- ``config``: the settings of one run, and the runs of each profile (``PROFILES``);
- ``run``: one run, built: its splits, the model with its readout, its scores;
- ``paper``: the paper's Table 1 (``PAPER``) and its row names;
- ``tables``, ``figures``: the report;
- ``experiment``: ``Ba2016``, which the registry finds.
"""

from memrnn.experiments.ba2016.config import MODELS, PROFILES, Ba2016Config, Model
from memrnn.experiments.ba2016.experiment import Ba2016
from memrnn.experiments.ba2016.paper import MODEL_NAMES, PAPER
from memrnn.experiments.ba2016.run import RetrievalRun, load_splits

__all__ = [
    "MODELS",
    "MODEL_NAMES",
    "PAPER",
    "PROFILES",
    "Ba2016",
    "Ba2016Config",
    "Model",
    "RetrievalRun",
    "load_splits",
]
