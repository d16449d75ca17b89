"""Trask (2016), *Hacking DeepMind's Neural Stack*: learning to reverse.

A single-layer RNN controller drives a ``NeuralStack`` to read a short sequence of symbols
and write it back reversed. The tutorial's two findings, each tested over several seeds:

* naive: with small initial gate biases, drawn from U(0.1, 0.3) for push and
  U(-0.1, 0.1) for pop, the tutorial's controller learned the training lengths without
  using the stack as a stack: it pushed everything and popped "half at a time" (every
  pop near 0.5).
* its fix ("Part 6", "Hint: Autoencoder"): push bias U(1, 1.2), pop bias U(-1, -0.8) and
  an autoencoder side task, after which the controller pushed while reading and popped
  while writing. The side task (``autoencoder_loss``) adds two sigmoid layers without
  bias, one on the controller state h_t and one on o'_t, each trained to reproduce the
  previous step's input x_{t-1} at every step after the first, by squared error with
  the main task's weight. Grefenstette et al. (2015, Appendix B) recommend the pop bias
  of -1 alone, so that variant runs too.

Which of these our controller does is measured, not assumed: ``stack_use`` is 1 when the
gates follow the algorithm (push then pop) and 0 when they do the same thing while
reading and writing.

One idea per module:

- ``variants``: the three starts (gate biases, side task);
- ``config``: the settings of one run, and the runs of each profile (``PROFILES``);
- ``gates``: ``stack_use``, from the gate strengths while reading and writing;
- ``autoencoder``: the side task, its loss and the controller with its two heads;
- ``run``: one run, built: the controller, its batches, loss and scores;
- ``paper``: what the tutorial printed (``PAPER``) and how it trained;
- ``tables``, ``figures``: the report;
- ``experiment``: ``Trask2016``, which the registry finds.
"""

from memrnn.experiments.trask2016.autoencoder import AutoencodingStackRNN, autoencoder_loss
from memrnn.experiments.trask2016.config import PROFILES, Trask2016Config
from memrnn.experiments.trask2016.experiment import Trask2016
from memrnn.experiments.trask2016.gates import GATE_COLUMNS, stack_use
from memrnn.experiments.trask2016.paper import PAPER
from memrnn.experiments.trask2016.run import ReversalRun, initial_biases
from memrnn.experiments.trask2016.tables import ACCURACY_COLUMNS
from memrnn.experiments.trask2016.variants import VARIANTS, Variant

__all__ = [
    "ACCURACY_COLUMNS",
    "GATE_COLUMNS",
    "PAPER",
    "PROFILES",
    "VARIANTS",
    "AutoencodingStackRNN",
    "ReversalRun",
    "Trask2016",
    "Trask2016Config",
    "Variant",
    "autoencoder_loss",
    "initial_biases",
    "stack_use",
]
