"""What Trask (2016) printed, as data: the gate strengths of its traces, and how it
trained (which our profiles set beside their own scale)."""

from __future__ import annotations

import numpy as np

from memrnn.experiments.tables import PaperTables, Printed
from memrnn.experiments.trask2016.gates import GATE_COLUMNS, stack_use

# The gate values Trask (2016) printed. Naive run: d_t = 1.0 at every step and these u_t;
# fixed run (push bias U(1, 1.2), pop bias U(-1, -0.8), autoencoder side task): one
# sequence of length 5, u_t and d_t for its 5 encoding steps and first 4 decoding steps.
_NAIVE_POP = [
    0.52627134,
    0.48875265,
    0.4833596,
    0.51072936,
    0.51525512,
    0.55418935,
    0.51561233,
    0.54271031,
    0.46972942,
    0.50030726,
    0.50420808,
    0.51277284,
    0.49249017,
    0.52770061,
    0.53647627,
    0.52879516,
    0.57190229,
    0.51895631,
    0.50232574,
    0.44804661,
    0.50789469,
    0.53620111,
    0.57897974,
    0.53155877,
]
_FIXED_POP = [
    1.42111936e-03,
    4.24234116e-05,
    4.38773521e-05,
    1.90306228e-03,
    4.46779468e-05,
    1.61383041e-03,
    9.99610386e-01,
    9.76241526e-01,
    9.99635875e-01,
]
_FIXED_PUSH = [
    9.96007159e-01,
    9.98850792e-01,
    9.98678243e-01,
    9.93183510e-01,
    9.98787118e-01,
    2.95677776e-02,
    4.76367458e-04,
    4.53054877e-04,
    5.11268758e-04,
]


def _tutorial(*gates: float) -> dict[str, float]:
    """The table's gate columns from (push_encode, pop_encode, push_decode, pop_decode)."""
    return {**dict(zip(GATE_COLUMNS, gates, strict=False)), "stack_use": stack_use(*gates)}


# The tutorial's numbers, as the gates table lays them out: the means of its traces.
PAPER: PaperTables = {
    "gates": {
        variant: {column: Printed(value) for column, value in gates.items()}
        for variant, gates in {
            "naive": _tutorial(1.0, float(np.mean(_NAIVE_POP)), 1.0, float(np.mean(_NAIVE_POP))),
            "tutorial-fix": _tutorial(
                float(np.mean(_FIXED_PUSH[:5])),
                float(np.mean(_FIXED_POP[:5])),
                float(np.mean(_FIXED_PUSH[5:])),
                float(np.mean(_FIXED_POP[5:])),
            ),
        }.items()
    }
}

TUTORIAL_SCALE = (
    "The tutorial trained by hand-written SGD on squared error over 2 symbols: its naive "
    "controller on about 2.96 million sequences (updates every 10) with a curriculum up to "
    "length 19, its fix on 750,000 sequences (updates every 50) of lengths 3-5."
)
"""How the tutorial trained, for the report's paragraph on scale."""
