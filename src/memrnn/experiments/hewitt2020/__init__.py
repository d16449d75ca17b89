"""Hewitt, Hahn, Ganguli, Liang, Manning (2020), *RNNs can generate bounded hierarchical
languages with optimal memory*: the constructions and LSTMs learning Dyck-(k,m).

Two kinds of run. A "construction" run builds one hand-made generator
(``memrnn.constructions``) and verifies that it generates Dyck-(k,m), exhaustively or by
random walks. An "lm" run trains the LSTM language model of Appendix H and scores bracket
closing (Appendix H.4) on the dev set and on the longer test set.

The training recipe is Appendix H.3's as the authors' code (dyckkm-learning) carries it
out (see ``language_model``; where the code and the text differ, we follow the code: Adam's
moments are kept when the rate is halved). Every seed of a cell trains on the same
training, dev and test sets ("identical development and test sets" in all settings,
Appendix H.1; one training file per setting in the authors' code); the seed sets the
initialisation and the batch order. Figure 3 reports the median over three seeds, and so
do we.

- ``config``: the settings of one run (``Hewitt2020Config``).
- ``paper``: the paper's grid, LSTM size, learning rates and its one number (``PAPER``).
- ``profiles``: the runs of each profile (``PROFILES``): the sweeps, walks and LSTM grid.
- ``constructions``: one construction (or a sweep of them) verified.
- ``data``, ``language_model``: a cell's splits, and the LSTM trained and scored.
- ``tables``, ``findings``, ``figures``: the report.
- ``experiment``: all of it as the ``Hewitt2020`` experiment.
"""

from memrnn.experiments.hewitt2020.config import Hewitt2020Config, Kind
from memrnn.experiments.hewitt2020.constructions import verify_construction
from memrnn.experiments.hewitt2020.data import lm_splits, train_lengths
from memrnn.experiments.hewitt2020.experiment import Hewitt2020
from memrnn.experiments.hewitt2020.language_model import (
    KEEP_MARGIN,
    RATE_MARGIN,
    train_language_model,
)
from memrnn.experiments.hewitt2020.paper import PAPER, learning_rate, lstm_units
from memrnn.experiments.hewitt2020.profiles import PROFILES, largest_k, sweep_runs

__all__ = [
    "KEEP_MARGIN",
    "PAPER",
    "PROFILES",
    "RATE_MARGIN",
    "Hewitt2020",
    "Hewitt2020Config",
    "Kind",
    "largest_k",
    "learning_rate",
    "lm_splits",
    "lstm_units",
    "sweep_runs",
    "train_language_model",
    "train_lengths",
    "verify_construction",
]
