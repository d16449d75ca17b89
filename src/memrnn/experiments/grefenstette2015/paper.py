"""What Grefenstette et al. (2015) printed and how they trained: Figure 2a's scores and the
depth of its Deep LSTM rows, and the protocol of section 4 that the paper profile
follows (its grid of depths, hidden sizes and learning rates, and its fixed settings)."""

from __future__ import annotations

from typing import Any

from memrnn.experiments.tables import PaperTables, printed_rows

SCORES = ("train_coarse", "train_fine", "test_coarse", "test_fine")
# Figure 2a (train coarse/fine, test coarse/fine); the Deep LSTM row is the paper's best depth
PAPER: PaperTables = {
    "figure2a": printed_rows(
        SCORES,
        {
            "copy Deep LSTM": (0.98, 0.98, 0.01, 0.50),
            "copy Stack-LSTM": (0.89, 0.94, 0.00, 0.22),
            "copy Queue-LSTM": (1.0, 1.0, 1.0, 1.0),
            "copy DeQue-LSTM": (1.0, 1.0, 1.0, 1.0),
            "reversal Deep LSTM": (0.95, 0.98, 0.04, 0.13),
            "reversal Stack-LSTM": (1.0, 1.0, 1.0, 1.0),
            "reversal Queue-LSTM": (0.44, 0.61, 0.00, 0.01),
            "reversal DeQue-LSTM": (1.0, 1.0, 1.0, 1.0),
            "bigram_flip Deep LSTM": (0.54, 0.93, 0.02, 0.52),
            "bigram_flip Stack-LSTM": (0.44, 0.90, 0.00, 0.48),
            "bigram_flip Queue-LSTM": (0.55, 0.94, 0.55, 0.98),
            "bigram_flip DeQue-LSTM": (0.55, 0.94, 0.53, 0.98),
            "svo_sov Deep LSTM": (0.98, 0.99, 0.98, 0.99),
            "svo_sov Stack-LSTM": (1.0, 1.0, 1.0, 1.0),
            "svo_sov Queue-LSTM": (1.0, 1.0, 1.0, 1.0),
            "svo_sov DeQue-LSTM": (1.0, 1.0, 1.0, 1.0),
            "conjugation Deep LSTM": (0.98, 0.99, 0.99, 0.99),
            "conjugation Stack-LSTM": (0.93, 0.97, 0.93, 0.97),
            "conjugation Queue-LSTM": (1.0, 1.0, 1.0, 1.0),
            "conjugation DeQue-LSTM": (1.0, 1.0, 1.0, 1.0),
        },
    )
}
# The depth of Figure 2a's Deep LSTM row on each task (the paper's best).
PAPER_BEST_DEPTH = {"copy": 4, "reversal": 8, "bigram_flip": 2, "svo_sov": 8, "conjugation": 8}

# The paper's grid: every model at each hidden size and learning rate.
PAPER_HIDDEN = (256, 512)
PAPER_LRS = (5e-3, 1e-3, 5e-4, 1e-4, 5e-5)
PAPER_DEPTHS = (1, 2, 4, 8)  # of the Deep LSTM; the memory models have one layer
# The paper's fixed settings. Steps, evaluations and seeds are not in the paper (the
# package docstring gives ours).
PAPER_SETTINGS: dict[str, Any] = {
    "steps": 100_000, "batch_size": 10, "optimizer": "rmsprop", "clip": 1.0,
    "embedding": 64, "memory_width": 256, "vocab_size": 128,
    "min_length": 8, "max_length": 64, "test_min_length": 65, "test_max_length": 128,
    "curriculum_start": 0, "eval_every": 5000, "checkpoint_every": 5000, "eval_size": 1000,
}  # fmt: skip
