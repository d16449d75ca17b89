"""trask2016's figures, from stored runs."""

from __future__ import annotations

from memrnn.experiments.trask2016 import Trask2016
from tests.experiments.trask2016.records import record

ARTIFACTS = {
    "lengths": [1, 2, 3],
    "seq_acc_by_length": [1.0, 0.5, 0.0],
    "trace_push": [0.9, 0.8, 0.1, 0.2],
    "trace_pop": [0.1, 0.0, 0.9, 0.7],
    "trace_sequence": [0, 1],
}


def test_gate_traces_show_each_variants_best_and_worst_seed() -> None:
    records = [
        record("naive", seed, use, 1.0, ARTIFACTS) for seed, use in ((0, 0.2), (1, 0.9), (2, 0.5))
    ] + [record("pop-bias", 0, 0.7, 1.0, ARTIFACTS)]
    figures = Trask2016().figures(records)
    assert list(figures) == ["gate-traces", "accuracy-by-length"]
    titles = [axes.get_title() for axes in figures["gate-traces"].axes if axes.get_title()]
    assert titles == [
        "naive, best seed (1, stack_use 0.90): reading | writing",
        "naive, worst seed (0, stack_use 0.20): reading | writing",
        "pop-bias, best seed (0, stack_use 0.70): reading | writing",
        "pop-bias, worst seed (0, stack_use 0.70): reading | writing",
    ]
    (curves,) = figures["accuracy-by-length"].axes
    assert [line.get_label() for line in curves.get_lines()] == ["naive", "pop-bias"]
    assert list(curves.get_lines()[0].get_ydata()) == [1.0, 0.5, 0.0]
