"""Paassen, Schulz, Hammer (2021), *Reservoir Stack Machines*: Tables 2-7 and Figure 2.

Nine models on nine data sets (``memrnn.tasks.rsm_benchmarks``): echo state networks
and reservoir stack machines with three reservoirs (random, CRJ, LDN), and the deep
baselines GRU, stack RNN (SRNN) and deep stack machine (DSM); and, as in the paper's
Appendix A (Tables 6 and 7), the three ESNs again with 1024 neurons. Each run fits one
model on fresh data sets of 100 training and 100 test sequences and records the test
mean absolute error and the seconds that training and evaluation took.

Scoring, the paper's "mean absolute error on the test data" (Tables 2, 3 and 6): the MAE
of a sequence is the mean over its steps and output channels of the distance between
the model's plain output and the target; a data set's MAE is the mean over its test
sequences. The plain output is the ESN's linear regression ("predict the desired output
via linear regression from the reservoir state", section 4), the deep models' sigmoid
(their raw output on the copy tasks) and the RSM's c_out: an SVM's 0/1 class on latch
and the languages, ridge regression on the copy tasks (section 3.2). Where the targets
are 0/1 (latch and the languages) each run also records the MAE of the outputs
thresholded at 0.5, which the report gives in a table of its own: it is not the
paper's measure. The paper bold-faces a cell whose mean and standard deviation are both
below 0.01 (``bold_faced``).

Neurons: 256 for every model, 512 for the reservoir models (ESNs and RSMs) on copy and
repeat copy. The paper's footnote 4, on "For all reservoirs, we used 256 neurons", says
"256 neurons were insufficient for the copy task. In this case, we increased the number
of neurons to 512". We read "the copy task" as both copy tasks: the paper defines repeat
copy as "the same as copy but" with repeats, reports its LDN-RSM solving it, and with 256
neurons ours cannot (test MAE 0.18; its readout does not even fit the training words,
whatever the window from 20 to 30 or the ridge penalty from 1e-6 to 1). The deep models
have 256 ("as for the reservoir models, we used 256 neurons for each model").

Hyperparameters: on the paper profile each run first samples ``search`` random sets
from ``SEARCH_SPACE`` and scores each on ``search_datasets`` separate data sets (the
protocol: 20 sets x 3 data sets), then evaluates the best one on ``repeats`` (10) data
sets; the chosen values land in the report. The quick profile fixes the values in
``QUICK_PARAMS`` (found by such searches on this machine) and runs one data set per
seed. The deep models have no search (the paper fixes Adam 1e-3, weight decay 1e-8).

The modules: ``paper`` (the paper's numbers and its bold face), ``config`` (one run's
settings and the paper's neurons), ``profiles`` (the runs of each profile), ``search``
(the hyperparameters and their search space), ``models`` (the nine models fitted),
``evaluation`` (one data set: fit, predict, score, time), ``run`` (search and repeats),
``tables`` and ``findings`` (the report), ``figures`` (Figure 2), ``experiment`` (the
experiment the runner drives).
"""

from memrnn.experiments.paassen2021.config import (
    DEEP_MODELS,
    LARGE_ESN,
    RESERVOIRS,
    Paassen2021Config,
    Task,
    paper_neurons,
)
from memrnn.experiments.paassen2021.evaluation import Evaluation, evaluate, mean_absolute_error
from memrnn.experiments.paassen2021.experiment import Paassen2021
from memrnn.experiments.paassen2021.models import fit_predict
from memrnn.experiments.paassen2021.paper import MODELS, PAPER, Model, bold_faced
from memrnn.experiments.paassen2021.profiles import PROFILES, QUICK_PARAMS
from memrnn.experiments.paassen2021.search import SEARCH_SPACE, search_space

__all__ = [
    "DEEP_MODELS",
    "LARGE_ESN",
    "MODELS",
    "PAPER",
    "PROFILES",
    "QUICK_PARAMS",
    "RESERVOIRS",
    "SEARCH_SPACE",
    "Evaluation",
    "Model",
    "Paassen2021",
    "Paassen2021Config",
    "Task",
    "bold_faced",
    "evaluate",
    "fit_predict",
    "mean_absolute_error",
    "paper_neurons",
    "search_space",
]
