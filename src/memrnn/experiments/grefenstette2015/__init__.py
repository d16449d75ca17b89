"""Grefenstette, Hermann, Suleyman, Blunsom (2015), *Learning to Transduce with Unbounded
Memory*, section 4: Stack-, Queue- and DeQue-LSTMs against Deep LSTMs on five
transduction tasks, trained on short sequences and tested on longer ones (Figure 2a).

Each run trains one model on one task by teacher forcing (loss on the target part of
``<s> source ||| target </s>`` only) and scores it by greedy decoding: coarse accuracy
(sequences fully right, ``</s>`` included) and fine accuracy (the right prefix's share),
on fresh sequences of the training lengths and of the longer test lengths. Both are
computed from one teacher-forced pass: up to its first error greedy decoding feeds back
the gold symbols, so its predictions there are the teacher-forced argmaxes, and neither
metric looks past the first error.

Paper profile: the paper's protocol. Deep LSTMs of 1, 2, 4 and 8 layers and single-layer
Stack-, Queue- and DeQue-LSTMs, each at hidden 256 and 512 and each of the learning rates
5e-3, 1e-3, 5e-4, 1e-4 and 5e-5: minibatch RMSProp, batch 10, gradient clipping at 1,
embeddings 64, memory width 256, 128 symbols for copy, reversal and bigram flip, training
sources of 8-64 symbols and test sources of 65-128, 1000 sequences per score. Each cell of
Figure 2a (a task and a model family) reports the run of its grid with the lowest training
perplexity, as the paper chooses its runs (``select``); the table names the hidden size,
learning rate and (Deep LSTM) depth it chose. The paper gives no number of training
steps, of seeds or of evaluations; ours are 100,000 steps (1,000,000 fresh training
sequences) per run, one seed, and an evaluation every 5,000 steps, of which the last is
reported. Training perplexity is exp of the mean cross-entropy per target symbol over the
training batches since the previous evaluation (the last 5,000 steps). A run whose loss
becomes infinite or NaN fails and is no candidate.

Training lengths follow an adaptive curriculum (quick profile): the longest source drawn
starts at ``curriculum_start`` and grows by ``curriculum_increment`` whenever greedy
coarse accuracy at the current lengths reaches ``curriculum_threshold``; the current
bound is a buffer of the trained module, so a resumed run continues where it was.

Gate noise (quick profile, Queue and DeQue, not in the paper): once the curriculum has
reached the longest training lengths, Gaussian noise of standard deviation ``gate_noise``
is added to the memory gates' pre-activations during training. Without it the models learn gates of
about 0.01 and 0.95 where 0 and 1 are meant; those leaks are harmless at the training
lengths but pile up over twice as many steps (a Queue-LSTM popping 0.01 a step has eaten
0.6 of its first value after 60 steps), and the test accuracy drops. The noise makes
leaky gates cost loss at the training lengths, so training drives them to 0 and 1.
Measured on copy with the Queue-LSTM (lr 1e-3, seed 0): test coarse accuracy 0.93 after
10,000 steps without noise, 1.00 from 6,000 steps with noise 1.0.

Weight decay and two DeQue starts (quick profile, not in the paper; measurements beside
``profiles.QUICK_STARTS``): AdamW decay stops a late drift of the Stack-LSTM at the test
lengths, and the DeQue trains from two starts, of which each cell reports the one with
the better training accuracy (``select``).

The modules, in the paper's terms: ``paper`` (Figure 2a's scores and the paper's grid),
``config`` (one run's settings), ``profiles`` (the runs of each profile), ``run`` (what one
run trains and scores), ``selection`` (which run each cell reports), ``report``, ``scale``
and ``figures`` (the report), ``experiment`` (all of it as one ``TrainedExperiment``).
"""

from memrnn.experiments.grefenstette2015.config import (
    MODEL_NAMES,
    MODELS,
    Grefenstette2015Config,
    Model,
    Task,
)
from memrnn.experiments.grefenstette2015.experiment import Grefenstette2015
from memrnn.experiments.grefenstette2015.paper import (
    PAPER,
    PAPER_BEST_DEPTH,
    PAPER_DEPTHS,
    PAPER_HIDDEN,
    PAPER_LRS,
    SCORES,
)
from memrnn.experiments.grefenstette2015.profiles import PROFILES
from memrnn.experiments.grefenstette2015.run import TransductionRun
from memrnn.experiments.grefenstette2015.selection import select, training_perplexity

__all__ = [
    "MODELS",
    "MODEL_NAMES",
    "PAPER",
    "PAPER_BEST_DEPTH",
    "PAPER_DEPTHS",
    "PAPER_HIDDEN",
    "PAPER_LRS",
    "PROFILES",
    "SCORES",
    "Grefenstette2015",
    "Grefenstette2015Config",
    "Model",
    "Task",
    "TransductionRun",
    "select",
    "training_perplexity",
]
