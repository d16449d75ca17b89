"""What Hewitt et al. (2020) state about their language models, as data: the grid of
section 8 (Figure 3), the LSTM size and learning rates of Appendix H, and the one number
the paper gives for them.

Section 8 trains LSTMs on Dyck-(k,m) for k in {2, 8, 32, 128} and m in {3, 5}, on
training sets of 2e3 to 2e7 tokens, and Figure 3 reports the median over three seeds of
the bracket-closing metric of Appendix H.4. The paper prints no table; its one number is
the claim for 2e7 training tokens, "error less than 10^{-4}" for every (k, m).
"""

from __future__ import annotations

from memrnn.constructions import theorem_units
from memrnn.experiments.tables import PaperTables, Printed

PAPER_KS, PAPER_MS = (2, 8, 32, 128), (3, 5)
PAPER_SIZES = (2_000, 20_000, 200_000, 2_000_000, 20_000_000)
PAPER_TOKENS = PAPER_SIZES[-1]
LM_SEEDS = 3  # LSTMs trained per cell, reported by their median as in Figure 3


def lm_row(k: int, m: int, train_tokens: int) -> str:
    """The row of the language-model table for Dyck-(k,m) trained on ``train_tokens``."""
    return f"k={k} m={m} {train_tokens:,} tokens"


# "error less than 10^{-4}" (section 8), i.e. mean_l p_l above 1 - 1e-4
PAPER: PaperTables = {
    "lm": {
        lm_row(k, m, PAPER_TOKENS): {"test_median": Printed(1 - 1e-4)}
        for k in PAPER_KS
        for m in PAPER_MS
    }
}


def lstm_units(k: int, m: int) -> int:
    """3 m ceil(log2 k) - m, the LSTM size of Theorem 5 used in section 8."""
    return theorem_units("lstm-log", k, m)


def learning_rate(k: int, train_tokens: int) -> float:
    """Appendix H.3's starting learning rate: 0.01, and 0.001 for 2e7 training tokens and
    for k = 128 from 2e6."""
    large = train_tokens >= 20_000_000 or (k == 128 and train_tokens >= 2_000_000)
    return 0.001 if large else 0.01
