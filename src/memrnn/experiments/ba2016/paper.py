"""What Ba et al. (2016) printed: Table 1, the test error (%) of each model at each
number of recurrent units R, with the models named and ordered as its rows."""

from __future__ import annotations

from memrnn.experiments.tables import PaperTables, printed_rows

# In the order of the paper's rows
MODEL_NAMES = {"irnn": "IRNN", "lstm": "LSTM", "alstm": "A-LSTM", "fast_weights": "Fast weights"}
# Table 1 of the paper: test error (%) by model and R
PAPER: PaperTables = {
    "table1": printed_rows(
        ("R=20", "R=50", "R=100"),
        {
            "IRNN": (62.11, 60.23, 0.34),
            "LSTM": (60.81, 1.85, 0.0),
            "A-LSTM": (60.13, 1.62, 0.0),
            "Fast weights": (1.81, 0.0, 0.0),
        },
    )
}
