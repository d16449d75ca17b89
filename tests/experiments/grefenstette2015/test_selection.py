"""The run each cell of Figure 2a reports: chosen on training alone (accuracy in the quick
profile, perplexity in the paper's), the same whatever the order of the runs."""

from __future__ import annotations

import itertools
import math

import pytest

from memrnn.experiments.grefenstette2015 import select, training_perplexity
from tests.experiments.grefenstette2015.records import (
    paper_record,
    quick_record,
    two_deque_starts,
)


def test_select_keeps_the_start_that_trains_best_whatever_the_test_says() -> None:
    records = two_deque_starts()
    chosen = [r.spec.name for r in select(records)]
    assert chosen == ["copy/queue-a/seed0", "copy/deque-top-open/seed0", "reversal/stack/seed0",
                      "reversal/deque-even/seed0"]  # fmt: skip
    guarded = [
        quick_record("quick", r.spec.name, (r.metrics["train_coarse"], r.metrics["train_fine"],
                                            r.metrics["train_loss"]), 0.0, guarded=True)
        for r in records
    ]  # fmt: skip
    assert [r.spec.name for r in select(guarded)] == chosen  # the test scores were never read


def test_the_paper_profile_picks_the_lowest_training_perplexity_never_the_test() -> None:
    records = [
        paper_record(("copy", "lstm", 1, 256, 1e-3), loss=0.5, test=1.0),
        paper_record(("copy", "lstm", 8, 512, 5e-4), loss=0.1, test=0.0),
        paper_record(("copy", "lstm", 2, 256, 5e-3), loss=0.3, test=0.9),
        paper_record(("copy", "stack", 1, 512, 1e-4), loss=None, test=1.0),  # no training loss
        paper_record(("copy", "stack", 1, 256, 1e-3), loss=2.0, test=0.0),
        paper_record(("reversal", "queue", 1, 256, 5e-5), loss=0.7, test=0.0),
    ]
    chosen = [(r.spec.task, r.spec.config["layers"], r.spec.config["hidden"], r.spec.config["lr"])
              for r in select(records)]  # fmt: skip
    assert chosen == [("copy", 8, 512, 5e-4), ("copy", 1, 256, 1e-3), ("reversal", 1, 256, 5e-5)]
    assert training_perplexity(records[1]) == pytest.approx(math.exp(0.1))
    assert training_perplexity(records[3]) == math.inf


def test_the_paper_profile_breaks_ties_the_same_way_in_any_order() -> None:
    # equal perplexity: the fewer layers, then the smaller hidden size, then the first name
    tied = [
        paper_record(("copy", "lstm", 4, 256, 1e-3), loss=0.2, test=1.0),
        paper_record(("copy", "lstm", 2, 512, 1e-3), loss=0.2, test=1.0),
        paper_record(("copy", "lstm", 2, 256, 5e-4), loss=0.2, test=0.0),
        paper_record(("copy", "lstm", 2, 256, 1e-4), loss=0.2, test=1.0),
        paper_record(("copy", "lstm", 1, 256, 5e-3), loss=0.3, test=1.0),
    ]
    for order in itertools.permutations(tied):
        (best,) = select(list(order))
        assert best.spec.name == "copy/lstm2/h256-lr1e-04/seed0"  # "lr1e-04" < "lr5e-04"


def test_select_refuses_runs_of_two_profiles() -> None:
    records = [
        paper_record(("copy", "queue", 1, 256, 1e-3), loss=0.1, test=1.0),
        quick_record("quick", "copy/queue/seed0", (1.0, 1.0, 0.0), test=1.0),
    ]
    with pytest.raises(ValueError, match="records: expected the runs of one profile"):
        select(records)
