"""``memrnn fit`` trains candidates and keeps the one that does best on pairs it did not
train on: the longest sources of the training file, held out, or ``--valid``; never a
test file. The choice is in the saved model, and the own-data battery runs at smoke size."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from memrnn.cli import main
from memrnn.cli.pairs import train_on_pairs
from memrnn.cli.selection import (
    Candidate,
    candidate_seed,
    choose,
    gate_blur,
    hold_out_longest,
    selection_table,
)
from memrnn.errors import UserError
from memrnn.models import load_model
from memrnn.tasks.text_pairs import TextPair
from tests.documented import ROOT

TINY = {"hidden_size": 4, "embedding": 4, "memory_width": 3}


def _pairs(lengths: list[int]) -> list[TextPair]:
    return [TextPair(("a",) * n, ("a",) * n, f"line {i + 1}") for i, n in enumerate(lengths)]


def test_the_longest_lengths_are_held_out_half_at_most() -> None:
    pairs = _pairs([1, 2, 3, 4, 5, 6, 7, 8] * 10)
    split = hold_out_longest(pairs)
    held = [len(p.source) for p in split.held_out]
    assert sorted(held) == [7] * 3 + [8] * 5  # half of 8, then what a tenth still needs
    assert {len(p.source) for p in split.train} == set(range(1, 9))  # every length trained
    assert len(split.train) == 72 and split.description == "8 pairs with sources of 7-8 tokens"
    assert hold_out_longest(pairs) == split  # the same pairs every time
    assert not set(split.held_out) & set(split.train)


def test_one_length_gives_a_tenth() -> None:
    pairs = [TextPair(("a", str(i)), ("b",), f"line {i}") for i in range(100)]
    split = hold_out_longest(pairs)
    assert len(split.held_out) == 10 and len(split.train) == 90
    assert not set(split.held_out) & set(split.train)


def test_a_small_file_holds_nothing_out() -> None:
    split = hold_out_longest(_pairs([1, 2, 3, 4, 5]))
    assert split.held_out == () and len(split.train) == 5
    assert split.description.startswith("none")


def _candidate(
    name: str, held: float, token: float = 0.5, loss: float = 1.0, blur: float = 0.1
) -> Candidate:
    return Candidate(name, 0, 0, 1.0, held, token, loss, blur, 1.0)


def test_the_best_held_out_accuracy_wins_then_tokens_then_loss() -> None:
    assert choose([_candidate("a", 0.5), _candidate("b", 0.9), _candidate("c", 0.7)]) == 1
    assert choose([_candidate("a", 0.9, 0.8), _candidate("b", 0.9, 0.9)]) == 1
    assert choose([_candidate("a", 1.0, 1.0, 0.2), _candidate("b", 1.0, 1.0, 0.1)]) == 1
    assert choose([_candidate("a", 1.0), _candidate("b", 1.0)]) == 0  # the first of equals
    sharp, blurred = _candidate("a", 1.0, 0.9, blur=0.01), _candidate("b", 1.0, 1.0, blur=0.2)
    assert choose([blurred, sharp]) == 1  # equally right: the sharper gates
    assert choose([_candidate("a", 1.0, blur=float("nan")), blurred]) == 1  # no gates last
    assert choose([sharp, _candidate("b", 0.5, blur=0.0)]) == 0  # accuracy first
    with pytest.raises(ValueError, match="candidates"):
        choose([])


def test_the_table_warns_when_nothing_generalises() -> None:
    low = [_candidate("stack_lstm", 0.4), _candidate("queue_lstm", 0.2)]
    table = selection_table(low, 0, "10 pairs with sources of 8 tokens", 2)
    assert "stack_lstm#0" in table and "<- chosen" in table
    assert "warning: no candidate reached 90%" in table and "stopped" not in table
    assert "warning" not in selection_table([_candidate("x", 0.95)], 0, "", 1)


def test_a_perfect_candidate_ends_the_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memrnn.cli.candidates as candidates_module
    import memrnn.cli.pairs as pairs_module

    perfect = {"sequence_accuracy": 1.0, "token_accuracy": 1.0, "loss": 0.0}
    for module in (pairs_module, candidates_module):  # evaluations, then the choice
        monkeypatch.setattr(module, "score_pairs", lambda *args: perfect)
    monkeypatch.setattr(candidates_module, "gate_blur", lambda *args: 0.01)
    lines = [f"{'ab' * n}\t{'ba' * n}" for n in range(1, 7)] * 5
    (tmp_path / "pairs.tsv").write_text("".join(f"{line}\n" for line in lines))
    saved = train_on_pairs(tmp_path / "pairs.tsv", tmp_path / "run", restarts=3, tokens="chars",
                           steps=1, eval_every=0, model_options=TINY, quiet=True)  # fmt: skip
    record = saved.selection
    assert len(record["candidates"]) == 1 and record["planned"] == 9  # stack_lstm#0 alone
    assert record["chosen"] == "stack_lstm#0"
    table = selection_table([_candidate("stack_lstm", 1.0)], 0, "", 9)
    assert "stopped after 1 of 9 candidates: stack_lstm#0 decoded every held-out pair" in table


def test_gate_blur_is_how_far_the_gates_are_from_0_and_1(tmp_path: Path) -> None:
    from memrnn.models import build_model_for
    from memrnn.tasks.text_pairs import TextPairsTask

    pairs = [TextPair(("a", "b"), ("b", "a"), "line 1"), TextPair(("b",), ("b",), "line 2")]
    task = TextPairsTask.from_pairs(pairs)
    model = build_model_for("stack_lstm", task, **TINY).eval()
    with torch.no_grad():
        model.core.top.push.weight.zero_()
        model.core.top.pop.weight.zero_()
        model.core.top.push.bias.fill_(math.log(0.9 / 0.1))  # push 0.9: blur 0.1
        model.core.top.pop.bias.fill_(-30.0)  # pop 0: blur 0
    assert gate_blur(task, model, pairs) == pytest.approx(0.05, abs=1e-4)
    lstm = build_model_for("lstm", task, hidden_size=4)
    assert math.isnan(gate_blur(task, lstm, pairs))


def test_restart_seeds_never_collide() -> None:
    seeds = {candidate_seed(s, r) for s in range(5) for r in range(10)}
    assert len(seeds) == 50 and candidate_seed(3, 0) == 3000


def test_the_choice_is_saved_with_every_candidate(tmp_path: Path) -> None:
    lines = [f"{'ab' * n}\t{'ba' * n}" for n in range(1, 7)] * 5
    (tmp_path / "pairs.tsv").write_text("".join(f"{line}\n" for line in lines))
    saved = train_on_pairs(
        tmp_path / "pairs.tsv", tmp_path / "run", model=["stack_lstm", "queue_lstm"],
        restarts=2, tokens="chars", steps=3, eval_every=0, model_options=TINY, quiet=True,
    )  # fmt: skip
    loaded = load_model(tmp_path / "run")
    record = loaded.selection
    assert record == json.loads(json.dumps(saved.selection))
    names = [c["name"] for c in record["candidates"]]
    assert names == ["stack_lstm#0", "queue_lstm#0", "stack_lstm#1", "queue_lstm#1"]
    assert [c["seed"] for c in record["candidates"]] == [0, 0, 1, 1]
    assert record["planned"] == 4
    assert record["chosen"] in names and loaded.name == record["chosen"].split("#")[0]
    best = max(record["candidates"], key=lambda c: c["held_out_accuracy"])
    chosen = next(c for c in record["candidates"] if c["name"] == record["chosen"])
    assert chosen["held_out_accuracy"] == best["held_out_accuracy"]
    assert record["held_out"] == "3 pairs with sources of 10-12 tokens, not trained on"
    assert loaded.task.train_lengths == (2, 12)  # every length is trained on


def test_selection_never_reads_a_test_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [f"{'ab' * n}\t{'ba' * n}" for n in range(1, 7)] * 5
    (tmp_path / "pairs.tsv").write_text("".join(f"{line}\n" for line in lines))
    (tmp_path / "pairs_test.tsv").write_text("abababab\tbabababa\n")
    read: list[str] = []
    original = Path.read_bytes

    def spy(self: Path) -> bytes:
        read.append(self.name)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", spy)
    train_on_pairs(tmp_path / "pairs.tsv", tmp_path / "run", model="stack_lstm", restarts=2,
                   tokens="chars", steps=2, model_options=TINY, quiet=True)  # fmt: skip
    assert "pairs.tsv" in read and "pairs_test.tsv" not in read


def test_fit_and_train_on_pairs_default_to_the_same_restarts() -> None:
    from memrnn.cli.parser import build_parser
    from memrnn.cli.selection import DEFAULT_RESTARTS

    args = build_parser().parse_args(["fit", "pairs.tsv", "--out", "run"])
    assert args.restarts == DEFAULT_RESTARTS == 4


def test_fit_prints_the_candidates_and_the_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [f"{'ab' * n}\t{'ba' * n}" for n in range(1, 7)] * 5
    (tmp_path / "pairs.tsv").write_text("".join(f"{line}\n" for line in lines))
    options = [f"--option={k}={v}" for k, v in TINY.items()]
    args = ["fit", str(tmp_path / "pairs.tsv"), "--out", str(tmp_path / "run"), "--steps", "2",
            "--tokens", "chars", *options]  # fmt: skip
    assert main([*args, "--restarts", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("6 candidates (stack_lstm, queue_lstm, deque_lstm; 2 restarts")
    assert "chosen on 3 pairs with sources of 10-12 tokens, not trained on" in captured.out
    for name in ("stack_lstm#0", "queue_lstm#1", "deque_lstm#0", "<- chosen"):
        assert name in captured.err
    with pytest.raises(SystemExit):  # argparse: a count is at least 1
        main([*args, "--restarts", "0"])


def test_restarts_out_of_range_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "pairs.tsv").write_text("a\ta\n")
    with pytest.raises(UserError, match="restarts"):
        train_on_pairs(tmp_path / "pairs.tsv", tmp_path / "o", restarts=101)
    with pytest.raises(UserError, match="models: expected at least one"):
        train_on_pairs(tmp_path / "pairs.tsv", tmp_path / "o", model=[])


def test_a_battery_task_runs_at_smoke_size(tmp_path: Path) -> None:
    script = str(ROOT / "benchmarks" / "own_data.py")
    subprocess.run([sys.executable, script, "write", str(tmp_path), "--scale", "0.05"],
                   check=True, capture_output=True)  # fmt: skip
    battery = json.loads((tmp_path / "battery.json").read_text())
    assert len(battery["tasks"]) >= 10
    memories = {task["memory"] for task in battery["tasks"].values()}
    assert memories == {"stack", "queue", "deque", "none"}
    fit = ["--steps", "2", "--restarts", "1", *[f"--option={k}={v}" for k, v in TINY.items()]]
    done = subprocess.run(
        [sys.executable, script, "run", str(tmp_path), "--tasks", "reverse2", "--seeds", "0",
         "--json", str(tmp_path / "rows.json"), "--fit-args", *fit],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    (row,) = json.loads((tmp_path / "rows.json").read_text())["rows"]
    assert row["task"] == "reverse2" and row["chosen"].endswith("#0")
    assert 0 <= row["test"] <= 1 and 0 <= row["train"] <= 1
    assert "memory (task, seed) pairs at test sequence accuracy" in done.stdout


@pytest.mark.parametrize("rounded_score", [1.0, 0.25])
def test_rounded_gates_are_kept_where_the_held_out_pairs_do_as_well(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rounded_score: float
) -> None:
    import memrnn.cli.candidates as candidates_module
    import memrnn.cli.pairs as pairs_module

    def score(task: object, model: torch.nn.Module, pairs: object) -> dict[str, float]:
        rounds = model.core.round_gates  # type: ignore[union-attr]
        accuracy = rounded_score if rounds else 0.5
        return {"sequence_accuracy": accuracy, "token_accuracy": accuracy, "loss": 1.0}

    for module in (pairs_module, candidates_module):  # evaluations, then the choice
        monkeypatch.setattr(module, "score_pairs", score)
    lines = [f"{'ab' * n}\t{'ba' * n}" for n in range(1, 7)] * 5
    (tmp_path / "pairs.tsv").write_text("".join(f"{line}\n" for line in lines))
    (tmp_path / "valid.tsv").write_text("abababab\tbabababa\n")
    saved = train_on_pairs(tmp_path / "pairs.tsv", tmp_path / "run", model="stack_lstm",
                           restarts=1, tokens="chars", steps=1, eval_every=0, quiet=True,
                           valid=tmp_path / "valid.tsv", model_options=TINY)  # fmt: skip
    (candidate,) = saved.selection["candidates"]
    kept = rounded_score >= 0.5
    assert candidate["rounded"] is kept
    assert candidate["held_out_accuracy"] == max(rounded_score, 0.5)
    loaded = load_model(tmp_path / "run")
    assert loaded.options.get("round_gates", False) is kept and saved.options == loaded.options
    assert loaded.model.core.round_gates is kept  # type: ignore[union-attr]


def test_rounded_gates_rank_as_sharp_and_settle() -> None:
    blurred = _candidate("stack_lstm", 1.0, blur=0.3)
    rounded = Candidate("stack_lstm", 1, 1, 1.0, 1.0, 0.5, 1.0, 0.3, 1.0, rounded=True)
    queue = _candidate("queue_lstm", 1.0, blur=0.2)
    assert choose([queue, blurred, rounded]) == 2
    assert rounded.settles() and not blurred.settles()
    assert choose([_candidate("a", 1.0), Candidate("b", 0, 0, 1.0, 0.9, 1.0, 0.0, 0.0, 1.0,
                                                   rounded=True)]) == 0  # fmt: skip


def test_the_battery_candidates_study_scores_every_candidate(tmp_path: Path) -> None:
    root = str(ROOT / "benchmarks")
    subprocess.run([sys.executable, f"{root}/own_data.py", "write", str(tmp_path), "--scale",
                    "0.05"], check=True, capture_output=True)  # fmt: skip
    options = [f"{k}={v}" for k, v in TINY.items()]
    done = subprocess.run(
        [sys.executable, f"{root}/own_data_candidates.py", str(tmp_path), "--tasks", "copy2",
         "--seeds", "0", "--restarts", "2", "--steps", "2", "--json", str(tmp_path / "c.json"),
         "--option", *options],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    rows = json.loads((tmp_path / "c.json").read_text())
    assert [r["name"] for r in rows] == ["queue_lstm#0", "queue_lstm#1"]  # no early stop
    assert all(0 <= r["test_soft"] <= 1 for r in rows)
    assert "chosen at >= 0.9: first 2" in done.stdout and "of 1 (task, seed) pairs" in done.stdout
