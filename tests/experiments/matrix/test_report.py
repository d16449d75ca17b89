"""The matrix's tables and findings from made-up records: selection reads only the
training lengths, the cells show the best seed and the median, the predictions are
judged from the median seed."""

from __future__ import annotations

from memrnn.experiments.base import RunRecord, RunSpec
from memrnn.experiments.matrix.findings import (
    CONTEXT_FREE,
    COPY,
    PREDICTIONS,
    conclusions,
    report_findings,
)
from memrnn.experiments.matrix.protocol import every_task, protocol
from memrnn.experiments.matrix.tables import chosen_run, generalising, score_tables, selected


def record(model: str, task: str, lr: float, seed: int, train: float, test: float) -> RunRecord:
    tags = {"model": model, "task": task, "lr": lr, "seed": seed}
    spec = RunSpec("matrix", f"{model}/{task}/lr{lr}/seed{seed}", "quick",
                   {"seed": seed, "lr": lr, "train_max": 10}, model, task, tags=tags)  # fmt: skip
    metrics = {"train_score": train, "loss": 1 - train, "test_score": test}
    return RunRecord(spec, metrics, {}, "v", 2.0, [])


def test_selection_reads_the_training_lengths_never_the_test_lengths() -> None:
    runs = [
        record("lstm", "reversal", 1e-3, 0, train=0.9, test=0.1),
        record("lstm", "reversal", 3e-3, 0, train=0.8, test=1.0),  # best on test: not taken
    ]
    (kept,) = selected(runs)
    assert kept.spec.tags["lr"] == 1e-3


def test_cells_show_the_best_seed_the_median_and_the_time() -> None:
    runs = [record("lstm", "reversal", 1e-3, seed, 0.9, test) for seed, test in
            enumerate((0.2, 0.6, 0.95))]  # fmt: skip
    matrix, median, chosen, share, seconds = score_tables(runs)
    assert matrix.rows["lstm"]["reversal"].value == 0.95
    assert matrix.rows["lstm"]["reversal"].bold  # solved, at 90% or more
    assert median.rows["lstm"]["reversal"].value == 0.6
    assert seconds.rows["lstm"]["reversal"].value == 6.0
    assert matrix.columns == ["reversal"] and matrix.name == "matrix"
    assert chosen.rows["lstm"]["reversal"].value == 0.2  # equal on training lengths: the first
    assert share.rows["lstm"]["reversal"].value == 1 / 3


def test_the_chosen_run_is_the_best_on_the_training_lengths_over_seeds_and_rates() -> None:
    runs = [
        record("stack_lstm", "reversal", 1e-3, 0, train=0.95, test=1.0),  # best on test
        record("stack_lstm", "reversal", 3e-3, 0, train=0.9, test=0.3),
        record("stack_lstm", "reversal", 1e-3, 1, train=0.99, test=0.7),
        record("stack_lstm", "reversal", 3e-3, 1, train=0.5, test=0.95),
    ]
    assert chosen_run(runs).metrics["test_score"] == 0.7  # never the test lengths
    assert generalising(runs) == 0.5
    tables = {t.name: t for t in score_tables(runs)}
    assert tables["matrix"].rows["stack_lstm"]["reversal"].value == 1.0  # best seed
    assert tables["matrix_chosen"].rows["stack_lstm"]["reversal"].value == 0.7
    assert tables["matrix_generalising"].rows["stack_lstm"]["reversal"].value == 0.5


def test_the_predictions_are_judged_from_the_scores() -> None:
    runs = [
        record("lstm", "reversal", 1e-3, 0, 1.0, 0.3),
        record("stack_lstm", "reversal", 1e-3, 0, 1.0, 0.97),
        record("stack_lstm", "rsm_dyck2", 1e-3, 0, 1.0, 0.5),
        record("queue_lstm", "copy", 1e-3, 0, 1.0, 0.99),
    ]
    found = report_findings(runs)
    assert any(f.startswith("Predicted: plain RNNs") and "Holds here: lstm on reversal 0.30" in f
               for f in found)  # fmt: skip
    assert any("a stack solves" in f and "Does not hold for 1 of 2" in f for f in found)
    assert any("a queue solves copy" in f and "Holds here" in f for f in found)
    assert not any("a deque" in f for f in found)  # no deque ran: nothing to judge
    assert any(f.startswith("Context-free tasks (reversal, rsm_dyck2): no model") for f in found)


def test_the_findings_judge_a_cell_by_its_median_seed_not_its_best() -> None:
    lucky = [record("lstm", "reversal", 1e-3, seed, 1.0, test) for seed, test in
             enumerate((0.3, 0.4, 0.95))]  # fmt: skip
    found = report_findings(lucky)
    assert any("Holds here: lstm on reversal 0.40" in f for f in found)  # one lucky seed
    assert conclusions(lucky)[-1] == (
        "Predicted: plain RNNs and LSTMs fail the context-free tasks beyond the training "
        "lengths (Delétang et al. 2023, section 5.1). Holds here"
    )


def test_the_conclusions_say_whether_a_prediction_holds_and_the_findings_count_where() -> None:
    runs = [
        record("stack_lstm", "reversal", 1e-3, 0, 1.0, 0.5),
        record("stack_lstm", "reverse_string", 1e-3, 0, 1.0, 0.4),
        record("stack_lstm", "rsm_dyck2", 1e-3, 0, 1.0, 0.99),
    ]
    (stack,) = [c for c in conclusions(runs) if "a stack solves" in c]
    assert stack.endswith("Does not hold here")  # how many is a number: in the findings
    assert any("a stack solves" in f and "Does not hold for 2 of 3 here" in f
               for f in report_findings(runs))  # fmt: skip


def test_stability_leaves_out_each_seed_in_turn() -> None:
    same = [record("stack_lstm", "reversal", 1e-3, seed, 1.0, 0.95) for seed in range(4)]
    (sentence,) = [f for f in report_findings(same) if "stable" in f.lower()]
    assert sentence == (
        "Stable: the conclusions above are the same with any one of seeds [0, 1, 2, 3] left out."
    )
    # two seeds of three solve it: leaving out either leaves 0.95 and 0.4, a median of 0.675
    split = [record("stack_lstm", "reversal", 1e-3, seed, 1.0, test) for seed, test in
             enumerate((0.95, 0.95, 0.4))]  # fmt: skip
    (sentence,) = [f for f in report_findings(split) if "stable" in f.lower()]
    assert sentence.startswith("Not stable: without seed 0, ")
    assert "without seed 1, " in sentence and "without seed 2" not in sentence
    assert "'Context-free tasks (reversal): no model solved every one', " in sentence
    assert "Does not hold here' in place of 'Context-free tasks (reversal): stack_lstm" in sentence
    one = [record("lstm", "reversal", 1e-3, 0, 1.0, 0.3)]
    assert not any("stable" in f.lower() for f in report_findings(one))


def test_the_predictions_name_registered_tasks_at_their_level() -> None:
    assert all(protocol(t).level == "context-free" for t in CONTEXT_FREE)
    assert all(protocol(t).level == "context-sensitive" for t in COPY)
    named = {t for p in PREDICTIONS for t in p.tasks}
    assert named <= set(every_task())


def test_a_prediction_that_fails_says_whether_its_exceptions_fit_the_training_lengths() -> None:
    runs = [
        record("stack_lstm", "reversal", 1e-3, 0, train=1.0, test=0.5),  # fits, no generalising
        record("stack_lstm", "reversal", 1e-3, 1, train=0.96, test=0.6),
        record("stack_lstm", "rsm_dyck2", 1e-3, 0, train=0.7, test=0.4),  # does not fit
        record("queue_lstm", "copy", 1e-3, 0, train=1.0, test=0.99),
    ]
    found = report_findings(runs)
    (stack,) = [f for f in found if f.startswith("Predicted: a stack solves")]
    assert stack.endswith(
        "Training-length score of those against it: fitted the training lengths but did "
        "not generalise: stack_lstm on reversal 0.98; did not fit the training lengths "
        "either: stack_lstm on rsm_dyck2 0.70."
    )  # the median of the seeds' training scores (1.0 and 0.96)
    (queue,) = [f for f in found if f.startswith("Predicted: a queue solves")]
    assert "Training-length score" not in queue


def test_a_memory_model_short_of_the_line_is_set_beside_the_best_plain_model() -> None:
    runs = [
        record("lstm", "reversal", 1e-3, 0, 1.0, 0.4),
        record("gru", "reversal", 1e-3, 0, 1.0, 0.5),
        record("lstm", "rsm_dyck2", 1e-3, 0, 1.0, 0.85),
        record("stack_lstm", "reversal", 1e-3, 0, 1.0, 0.8),
        record("stack_lstm", "rsm_dyck2", 1e-3, 0, 1.0, 0.7),
    ]
    (stack,) = [f for f in report_findings(runs) if f.startswith("Predicted: a stack solves")]
    assert stack.endswith(
        "Beside the best plain model on the same task, above every plain RNN and LSTM: "
        "stack_lstm on reversal (0.80 against 0.50); not above them: stack_lstm on "
        "rsm_dyck2 (0.70 against 0.85)."
    )
    (plain,) = [f for f in report_findings(runs) if f.startswith("Predicted: plain")]
    assert "Beside" not in plain  # a prediction of failure is not set beside itself
