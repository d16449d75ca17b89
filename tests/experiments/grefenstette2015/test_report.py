"""The report: Figure 2a's table with the paper's scores (none beside a smoke run), the
findings (the quick profile's targets, each start's scores, the paper profile's choice of
configuration), and a smoke run's scale, which claims nothing."""

from __future__ import annotations

import dataclasses

from memrnn.experiments.base import RunRecord
from memrnn.experiments.grefenstette2015 import Grefenstette2015
from memrnn.experiments.tables import Printed
from tests.experiments.grefenstette2015.records import (
    paper_record,
    quick_record,
    two_deque_starts,
)


def test_the_findings_judge_the_chosen_start_and_list_the_other() -> None:
    lines = Grefenstette2015().findings(two_deque_starts())
    assert any(line.startswith("DeQue-LSTM on copy: test coarse accuracy 0.10 misses")
               for line in lines)  # fmt: skip
    # the start is read from the run's config, not its name
    assert any(
        line.startswith("copy, DeQue-LSTM (even start): test coarse 0.90")
        and "not reported" in line
        for line in lines
    )
    assert any(line.startswith("reversal, DeQue-LSTM (top-open start)") for line in lines)


def test_the_smoke_scale_and_findings_make_no_claim() -> None:
    experiment = Grefenstette2015()
    scale = experiment.scale("smoke")
    assert scale != experiment.scale("quick") and scale.startswith("a smoke run")
    assert "hidden 8" in scale and "4 steps" in scale and "test lengths 5-6" in scale
    # the same runs' numbers under the quick profile are judged against its targets
    names = (
        "reversal/stack/seed0", "copy/queue/seed0", "copy/deque-even/seed0",
        "copy/deque-top-open/seed0", "reversal/deque-even/seed0", "copy/lstm/seed0",
    )  # fmt: skip
    for profile, judged in (("smoke", False), ("quick", True)):
        records = [quick_record(profile, name, (1.0, 1.0, 0.1), test=0.5) for name in names]
        lines = experiment.findings(records)
        assert any("misses the target of 0.95" in line for line in lines) is judged
        assert any("Deep LSTM test coarse accuracy" in line for line in lines) is judged
        cells = [c for row in experiment.tables(records)[0].rows.values() for c in row.values()]
        assert all((c.paper is not None) is judged for c in cells)


def test_the_paper_table_names_each_cells_chosen_configuration() -> None:
    records = [
        paper_record(coordinates, loss, test=0.5, guarded=False)
        for coordinates, loss in (
            (("copy", "lstm", 8, 512, 5e-4), 0.1),
            (("copy", "lstm", 1, 256, 1e-3), 0.4),
            (("copy", "stack", 1, 256, 1e-3), 0.2),
            (("copy", "stack", 1, 512, 5e-3), 0.3),
            (("copy", "deque", 1, 512, 5e-5), 0.05),
        )
    ]
    (table,) = Grefenstette2015().tables(records)
    assert list(table.rows) == [
        "copy Deep LSTM (8 layers, hidden 512, lr 5e-04)",
        "copy Stack-LSTM (hidden 256, lr 1e-03)",
        "copy DeQue-LSTM (hidden 512, lr 5e-05)",
    ]
    assert (
        "lowest training perplexity" in table.caption
        and "copy 4, reversal 8, bigram_flip 2" in table.caption
    )
    assert table.rows["copy Stack-LSTM (hidden 256, lr 1e-03)"]["test_coarse"].paper == Printed(0.0)
    lines = Grefenstette2015().findings(records)
    assert "copy, Deep LSTM: 8 layers, hidden 512, lr 5e-04, training perplexity 1.1052, " \
           "the lowest of 2 finished runs." in lines  # fmt: skip
    assert not any("target" in line for line in lines)


def test_several_seeds_give_each_cell_their_median_and_each_seed_its_line() -> None:
    """With --seeds, a cell's table entry and its target are the median of its seeds'
    chosen runs, the finding names each seed's score, and every run's line its seed."""
    scores = {0: 1.0, 1: 0.99, 2: 0.78}  # the median is not the last seed's
    records = [
        quick_record("quick", f"reversal/deque-{start}/seed{seed}", train, test)
        for seed, test in scores.items()
        for start, train in (("even", (1.0, 1.0, 0.01)), ("top-open", (0.4, 0.5, 1.0)))
    ] + [quick_record("quick", "reversal/stack/seed1", (1.0, 1.0, 0.0), test=0.5)]
    experiment = Grefenstette2015()
    (table,) = experiment.tables(records)
    deque = table.rows["reversal DeQue-LSTM"]["test_coarse"]
    assert (deque.value, deque.seeds) == (0.99, (0, 1, 2))
    assert table.rows["reversal Stack-LSTM"]["test_coarse"].value == 0.5
    assert "the median over the seeds" in table.caption
    lines = experiment.findings(records)
    assert (
        "DeQue-LSTM on reversal: test coarse accuracy 0.99 (the median of seeds 0, 1, 2: "
        "1.00, 0.99, 0.78) meets the target of 0.95 at the longer test lengths."
    ) in lines
    assert "Stack-LSTM on reversal: test coarse accuracy 0.50 misses" in " ".join(lines)
    assert any(line.startswith("reversal, DeQue-LSTM (even start), seed 2: test coarse 0.78")
               for line in lines)  # fmt: skip


def _with_test_scores(record: RunRecord, scores: dict[int, float]) -> RunRecord:
    """``record`` with these test coarse scores at its evaluations (step: score)."""
    history = [(step, "test_coarse", score) for step, score in scores.items()]
    return dataclasses.replace(record, history=history)


def test_a_target_says_how_often_its_run_scored_the_target_over_its_second_half() -> None:
    """A run whose test score swings meets or misses by where the swing stands at the last
    evaluation; the finding says how many evaluations of the second half (steps past
    4,000 of 8,000) were at 0.95 or more, for each seed."""
    swinging = {step: 1.0 if step % 300 else 0.6 for step in range(100, 8001, 100)}
    record = quick_record("quick", "reversal/stack/seed0", (1.0, 1.0, 0.0), test=1.0)
    lines = Grefenstette2015().findings([_with_test_scores(record, swinging)])
    # 40 evaluations from step 4,100; 13 of them (4,200, 4,500, ..., 7,800) at 0.6
    assert (
        "Stack-LSTM on reversal: test coarse accuracy 1.00 meets the target of 0.95 at the "
        "longer test lengths; it scored 0.95 or more at 27 of the 40 times its test lengths "
        "were scored over its second half."
    ) in lines
    seeds = [
        _with_test_scores(
            quick_record("quick", f"reversal/stack/seed{seed}", (1.0, 1.0, 0.0), test=1.0),
            swinging if seed else {step: 0.95 for step in (4000, 4100, 8000)},
        )
        for seed in (0, 1)
    ]
    assert any(
        line.endswith("its seeds scored 0.95 or more at 2 of 2, 27 of 40 of the times their "
                      "test lengths were scored over their second halves.")
        for line in Grefenstette2015().findings(seeds)
    )  # fmt: skip
