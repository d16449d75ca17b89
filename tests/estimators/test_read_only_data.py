"""The torch estimators on the RSM benchmarks' data, whose arrays are shared read-only:
no tensor is made over one (torch warns, once a process, and it could be written)."""

from __future__ import annotations

import subprocess
import sys

# A fresh process, with every warning an error: torch's warning shows only once a process.
SCRIPT = """
import warnings
import numpy as np
from memrnn.estimators.deep import DeepSequenceModel
from memrnn.estimators.dsm import DeepStackMachine
from memrnn.tasks.rsm_benchmarks import make_dataset
warnings.simplefilter("error")
data = make_dataset("dyck1", np.random.default_rng(0), 3, test=False)
assert not data.inputs[0].flags.writeable and not data.teachers[0].shift.flags.writeable
dsm = DeepStackMachine(4, epochs=1, random_state=0, max_actions=20)
dsm.fit(data.inputs, data.teachers, nonterminals=data.nonterminals)
dsm.predict(data.inputs)
for kind in ("gru", "srnn"):
    model = DeepSequenceModel(kind, 4, epochs=1, random_state=0, threads=1)
    model.fit(data.inputs, data.targets).predict(data.inputs)
"""


def test_the_torch_estimators_fit_and_predict_read_only_data_without_a_warning() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
