"""Your own data through the command line: ``memrnn fit`` trains and saves a model,
another process loads it and predicts the very same bits; ``decode`` and ``score``;
resuming; every mistake one line and exit status 2."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file

import memrnn.cli.candidates as candidates_module
from memrnn.cli import main
from memrnn.cli.commands import quick_times
from memrnn.cli.pairs import EXPERIMENT, train_on_pairs
from memrnn.errors import UserError
from memrnn.experiments.registry import experiment_names
from memrnn.models import load_model
from memrnn.runner.reproduce import STORE_NAME
from memrnn.runner.store import ResultsStore
from memrnn.tasks.text_pairs import TextPairsTask, read_pairs, read_sources
from memrnn.tasks.text_pairs_decoding import decode_tokens, score_pairs

PAIRS = "a b c\tc b a\nb a\ta b\nc\tc\na a b\tb a a\nc b\tb c\nb b c a\ta c b b\n"
INPUTS = "a b\nc c a b\nb\n"
# The ids the other process feeds the loaded model: <s> a b ||| b a </s> for 3 + 3 words
IDS = [[6, 0, 1, 7, 4, 3, 8], [6, 2, 7, 5, 8, 8, 8]]
TINY = ["--option", "hidden_size=6", "--option", "embedding=4", "--option", "memory_width=3"]

# Run in a new process: load the saved model, write its logits for IDS and its decoding.
_OTHER_PROCESS = """
import sys, torch
from safetensors.torch import save_file
from memrnn.models import load_model
saved = load_model(sys.argv[1])
with torch.no_grad():
    logits = saved.model(torch.tensor(eval(sys.argv[2])))
save_file({"logits": logits.contiguous()}, sys.argv[3])
"""


def saved_models(monkeypatch: pytest.MonkeyPatch) -> list[torch.nn.Module]:
    """The models ``memrnn fit`` saves from now on, as the training process holds them."""
    trained: list[torch.nn.Module] = []
    save_model = candidates_module.save_model

    def keep(folder: Path, model: torch.nn.Module, *args: Any, **kwargs: Any) -> Path:
        trained.append(model)
        return save_model(folder, model, *args, **kwargs)

    monkeypatch.setattr(candidates_module, "save_model", keep)
    return trained


def _files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "pairs.tsv").write_text(PAIRS)
    (tmp_path / "inputs.txt").write_text(INPUTS)
    return tmp_path / "pairs.tsv", tmp_path / "inputs.txt"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)


def test_a_model_fitted_here_predicts_the_same_bits_in_a_new_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs, inputs = _files(tmp_path)
    out = tmp_path / "run"
    trained = saved_models(monkeypatch)
    fit = ["fit", str(pairs), "--model", "stack_lstm", "--out", str(out), "--steps", "8"]
    assert main([*fit, *TINY, "--set", "eval_every=4", "--quiet"]) == 0
    assert f"saved the model in {out}/model.json" in capsys.readouterr().out
    (model,) = trained
    task = TextPairsTask.from_file(pairs)
    with torch.no_grad():
        here = model(torch.tensor(IDS))
    decoded = decode_tokens(task, model, read_sources(inputs))
    scores = score_pairs(task, model, read_pairs(pairs))

    there = tmp_path / "logits.safetensors"
    _run("-c", _OTHER_PROCESS, str(out), repr(IDS), str(there))
    assert torch.equal(load_file(there)["logits"], here)  # bit for bit
    printed = _run("-m", "memrnn.cli", "decode", str(out), str(inputs)).stdout
    assert printed.splitlines() == [" ".join(tokens) for tokens in decoded]
    scored = _run("-m", "memrnn.cli", "score", str(out), str(pairs)).stdout
    for metric, value in scores.items():
        assert f"{metric:28s} {value:.6g}" in scored


def test_a_saved_model_is_replaced_only_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs, _ = _files(tmp_path)
    out = tmp_path / "run"
    fit = ["fit", str(pairs), "--model", "lstm", "--out", str(out), "--steps", "2", "--quiet",
           "--option", "hidden_size=3"]  # fmt: skip
    assert main(fit) == 0
    saved = {p.name: p.read_bytes() for p in out.glob("model.*")}
    capsys.readouterr()
    assert main([*fit, "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"memrnn: error: {out} holds a model saved by an earlier fit")
    assert err.count("\n") == 1 and "--force" in err
    assert {p.name: p.read_bytes() for p in out.glob("model.*")} == saved
    with pytest.raises(UserError, match="force=True"):
        train_on_pairs(pairs, out, model="lstm", steps=1, quiet=True)
    assert main([*fit, "--seed", "1", "--force"]) == 0
    assert (out / "model.safetensors").read_bytes() != saved["model.safetensors"]


def test_the_run_is_in_the_store_and_resumes_exactly(tmp_path: Path) -> None:
    pairs, _ = _files(tmp_path)
    settings: dict[str, Any] = {
        "steps": 6, "seed": 1, "eval_every": 3, "checkpoint_every": 1, "batch_size": 4,
        "model_options": {"hidden_size": 5}, "model": "gru", "restarts": 1, "quiet": True,
    }  # fmt: skip
    whole = train_on_pairs(pairs, tmp_path / "whole", **settings)

    def stop_at_4(progress: Any) -> None:
        if progress.step == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_on_pairs(pairs, tmp_path / "cut", on_progress=stop_at_4, **settings)
    with ResultsStore(tmp_path / "cut" / STORE_NAME) as store:
        assert [run["status"] for run in store.runs()] == ["interrupted"]
    resumed = train_on_pairs(pairs, tmp_path / "cut", resume=True, **settings)
    for key, value in whole.model.state_dict().items():
        assert torch.equal(resumed.model.state_dict()[key], value), key
    for folder in ("whole", "cut"):
        with ResultsStore(tmp_path / folder / STORE_NAME) as store:
            (record,) = store.records(EXPERIMENT)
            assert record.spec.model == "gru" and record.metrics["steps"] == 6
    assert whole.task.source_words == ("a", "b", "c")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fit", "{tmp}/none.tsv", "--out", "{tmp}/o"], "{tmp}/none.tsv: cannot read the pairs"),
        (["fit", "{tmp}/bad.tsv", "--out", "{tmp}/o"], "{tmp}/bad.tsv, line 2: no tab"),
        (["fit", "{tmp}/pairs.tsv", "--out", "{tmp}/o", "--model", "nosuch"], "model: expected"),
        (
            ["fit", "{tmp}/pairs.tsv", "--out", "{tmp}/o", "--valid", "{tmp}/valid.tsv"],
            "{tmp}/valid.tsv, line 1: unknown source token 'q'",
        ),
        (
            ["fit", "{tmp}/pairs.tsv", "--out", "{tmp}/o", "--set", "model=gru"],
            "--set model: given",
        ),
        (["fit", "{tmp}/pairs.tsv", "--out", "{tmp}/o", "--set", "x=1"], "--set x: unknown"),
        (["fit", "{tmp}/pairs.tsv", "--out", "{tmp}/o", "--option", "size"], "--option 'size'"),
        (["decode", "{tmp}/nomodel", "{tmp}/inputs.txt"], "{tmp}/nomodel/model.json: no model"),
        (["score", "{tmp}/nomodel", "{tmp}/pairs.tsv"], "{tmp}/nomodel/model.json: no model"),
        (["reproduce"], "name the experiments to reproduce, or give --all"),
        (["reproduce", "--all", "trask2016"], "name experiments or give --all, not both"),
    ],
)
def test_mistakes_are_one_line(
    tmp_path: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path)
    (tmp_path / "bad.tsv").write_text("a\tb\nc d\n")
    (tmp_path / "valid.tsv").write_text("q\ta\n")
    assert main([a.replace("{tmp}", str(tmp_path)) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memrnn: error: " + message.replace("{tmp}", str(tmp_path))), err
    assert err.count("\n") == 1


def test_decode_names_an_unknown_token_and_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs, _ = _files(tmp_path)
    train_on_pairs(pairs, tmp_path / "run", steps=1, model="lstm", model_options={"hidden_size": 3},
                   restarts=1, quiet=True)  # fmt: skip
    (tmp_path / "new.txt").write_text("a b\nb zz a\n")
    assert main(["decode", str(tmp_path / "run"), str(tmp_path / "new.txt")]) == 2
    err = capsys.readouterr().err
    assert err == f"memrnn: error: {tmp_path}/new.txt, line 2: unknown source token 'zz'; " + (
        "the model knows the 3 source tokens of the pairs it was trained on\n"
    )


def test_reproduce_without_names_lists_the_measured_times(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["reproduce", "--profile", "smoke"]) == 2
    err = capsys.readouterr().err
    assert quick_times() in err
    for name in experiment_names():
        assert name in err


def _has_tensorboard() -> bool:
    try:
        import torch.utils.tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


def test_tensorboard_asked_for_but_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)  # import fails
    pairs, _ = _files(tmp_path)
    args = ["fit", str(pairs), "--out", str(tmp_path / "o"), "--tensorboard", str(tmp_path / "tb")]
    assert main(args) == 2
    assert "TensorBoard is not installed" in capsys.readouterr().err


@pytest.mark.skipif(not _has_tensorboard(), reason="TensorBoard is not installed")
def test_tensorboard_event_files(tmp_path: Path) -> None:
    pairs, _ = _files(tmp_path)
    tb = tmp_path / "tb"
    fit = ["fit", str(pairs), "--out", str(tmp_path / "o"), "--steps", "2", "--quiet"]
    assert main([*fit, "--option", "hidden_size=4", "--tensorboard", str(tb)]) == 0
    assert list(tb.glob("*/events.out.tfevents.*"))  # a folder a candidate


def test_train_on_pairs_names_an_unknown_setting(tmp_path: Path) -> None:
    pairs, _ = _files(tmp_path)
    with pytest.raises(UserError, match="unknown setting colour; the settings are seed, steps"):
        train_on_pairs(pairs, tmp_path / "o", colour="red")
    with pytest.raises(UserError, match="unknown setting pairs_sha256"):
        train_on_pairs(pairs, tmp_path / "o", pairs_sha256="0")


def test_an_unknown_model_option_fails_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs, _ = _files(tmp_path)
    out = tmp_path / "run"
    assert main(["fit", str(pairs), "--out", str(out), "--option", "hidden=32"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(
        "memrnn: error: model options: hidden: 'stack_lstm' takes no such option; its options "
        "are bottom_push_bias, embedding, "
    )
    assert captured.err.count("\n") == 1 and captured.out == ""  # no progress bar
    assert not out.exists()  # nothing left on disk
    assert main(["fit", str(pairs), "--out", str(out), "--option", "hidden_size=-1"]) == 2
    assert "hidden_size" in capsys.readouterr().err and not out.exists()


CHARS = "abc\tcba\nba\tab\nc\tc\naab\tbaa\ncb\tbc\nbbca\tacbb\n"


def test_character_tokens_train_decode_and_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pairs.tsv").write_text(CHARS)
    (tmp_path / "inputs.txt").write_text("ab\ncca\n")
    out = tmp_path / "run"
    fit = ["fit", str(tmp_path / "pairs.tsv"), "--out", str(out), "--steps", "3", "--quiet"]
    assert main([*fit, "--tokens", "chars", *TINY]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.err
    saved = load_model(out)
    assert saved.task.tokens == "chars" and saved.task.source_words == ("a", "b", "c")
    assert main(["decode", str(out), str(tmp_path / "inputs.txt")]) == 0
    decoded = capsys.readouterr().out.splitlines()
    expected = decode_tokens(
        saved.task, saved.model, read_sources(tmp_path / "inputs.txt", "chars")
    )
    assert decoded == ["".join(tokens) for tokens in expected]
    assert main(["score", str(out), str(tmp_path / "pairs.tsv")]) == 0
    assert "sequence_accuracy" in capsys.readouterr().out


def test_unspaced_lines_read_as_words_warn(tmp_path: Path) -> None:
    (tmp_path / "pairs.tsv").write_text(CHARS)
    with pytest.warns(UserWarning, match="no line has a space.*tokens='chars'"):
        task = TextPairsTask.from_file(tmp_path / "pairs.tsv")
    assert "abc" in task.source_words  # read as asked: each side one word
    fit = ["fit", str(tmp_path / "pairs.tsv"), "--out", str(tmp_path / "o"), "--steps", "1"]
    with pytest.warns(UserWarning, match="--tokens chars"):
        assert main([*fit, "--quiet", *TINY]) == 0
    (tmp_path / "spaced.tsv").write_text("a b\tb a\nc\tc\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a file with spaces does not warn
        read_pairs(tmp_path / "spaced.tsv")
