"""Pairs files read into a transduction task: every mistake named with its file and line,
the vocabularies sorted, the layout that of the transduction tasks."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from memrnn.errors import UserError
from memrnn.tasks import TextPairsTask, TransductionTask
from memrnn.tasks.text_pairs import TextPair, read_pairs, read_sources


def _file(tmp_path: Path, data: bytes | str, name: str = "pairs.tsv") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_reads_pairs_tokens_and_lines(tmp_path: Path) -> None:
    path = _file(tmp_path, "a b c\tc b a\r\nx\t\n\n \n")
    pairs = read_pairs(path)
    assert pairs == [
        TextPair(("a", "b", "c"), ("c", "b", "a"), f"{path}, line 1"),
        TextPair(("x",), (), f"{path}, line 2"),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("a b\n", "line 1: no tab; expected source<TAB>target"),
        ("a\tb\na\tb\tc\n", "line 2: 2 tabs; expected source<TAB>target"),
        ("a\tb\n\tb\n", "line 2: an empty source"),
        ("a\tb\n\na\tb\n", "line 2: a blank line (allowed only at the end)"),
        ("a  b\tb\n", "line 1: an empty token in the source"),
        ("a\tb \n", "line 1: an empty token in the target"),
        (b"a\tb\nc\t\xff\xfe\n", "line 2: not UTF-8 text (byte 0xff)"),
    ],
)
def test_a_bad_line_is_named(tmp_path: Path, data: str | bytes, message: str) -> None:
    path = _file(tmp_path, data)
    with pytest.raises(UserError) as caught:
        read_pairs(path)
    assert str(caught.value).startswith(f"{path}, {message}")


@pytest.mark.parametrize("data", ["", "\n\n", "\r\n"])
def test_an_empty_file_is_named(tmp_path: Path, data: str) -> None:
    path = _file(tmp_path, data)
    with pytest.raises(UserError, match=f"^{path}: an empty file"):
        read_pairs(path)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"nothing\.tsv: cannot read the pairs"):
        read_pairs(tmp_path / "nothing.tsv")


def test_sources_file(tmp_path: Path) -> None:
    path = _file(tmp_path, "a b\nc\n", "in.txt")
    assert read_sources(path) == [(("a", "b"), f"{path}, line 1"), (("c",), f"{path}, line 2")]
    with pytest.raises(UserError, match=r"line 2: a tab; expected one source a line"):
        read_sources(_file(tmp_path, "a\nb\tc\n", "in.txt"))


def test_vocabularies_are_sorted_and_stable(tmp_path: Path) -> None:
    one = TextPairsTask.from_file(_file(tmp_path, "z a\tq\nm\tb q\n", "one.tsv"))
    two = TextPairsTask.from_file(_file(tmp_path, "m\tb q\nz a\tq\n", "two.tsv"))
    assert one.source_words == two.source_words == ("a", "m", "z")
    assert one.target_words == two.target_words == ("b", "q")
    assert one.train_lengths == one.test_lengths == (1, 2) and one.longest_target == 2
    assert one.options() == two.options()
    assert TextPairsTask(**one.options()).options() == one.options()


def test_the_layout_is_the_transduction_tasks(tmp_path: Path) -> None:
    """As the copy task lays out ([2, 0], [2, 0]): <s> source ||| target </s>."""
    task = TextPairsTask.from_file(_file(tmp_path, "c a\tc a\nb\tb\nd\td\n"))
    copy = TransductionTask("copy", vocab_size=4)
    assert isinstance(task, TransductionTask)
    assert (task.input_size, task.output_size) == (copy.input_size, copy.output_size)
    pairs = [task.encode(p) for p in task.pairs]
    assert pairs[0] == ([2, 0], [2, 0])
    ours, theirs = task.make_batch(pairs), copy.make_batch(pairs)
    assert torch.equal(ours.inputs, theirs.inputs) and torch.equal(ours.targets, theirs.targets)
    assert task.target_tokens([2, 0, task.eos, 1]) == ("c", "a")


def test_samples_the_files_pairs_in_the_length_range(tmp_path: Path) -> None:
    task = TextPairsTask.from_file(_file(tmp_path, "a b\tb a\na\ta\nb b b\tb\n"))
    batch = task.sample_pairs(np.random.default_rng(0), 50, 2, 3)
    assert {(tuple(s), tuple(t)) for s, t in batch} == {((0, 1), (1, 0)), ((1, 1, 1), (1,))}
    again = task.sample_batch(np.random.default_rng(1), 8, 1, 3)
    same = task.sample_batch(np.random.default_rng(1), 8, 1, 3)
    assert torch.equal(again.inputs, same.inputs)
    with pytest.raises(ValueError, match="has no source of 4 to 5 tokens"):
        task.sample_pairs(np.random.default_rng(0), 1, 4, 5)
    empty = TextPairsTask(**task.options())
    with pytest.raises(ValueError, match="holds no pairs"):
        empty.sample_batch(np.random.default_rng(0), 1, 1, 3)


def test_unknown_tokens_are_named_with_their_line(tmp_path: Path) -> None:
    task = TextPairsTask.from_file(_file(tmp_path, "a\tb\n"))
    (pair,) = read_pairs(_file(tmp_path, "a\tz\n", "valid.tsv"))
    with pytest.raises(UserError, match=r"valid.tsv, line 1: unknown target token 'z'"):
        task.encode(pair)
    with pytest.raises(UserError, match=r"here: unknown source token 'q'"):
        task.encode_source(["a", "q"], "here")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"source_words": ["b", "a"]}, "source_words: expected distinct sorted tokens"),
        ({"source_words": ["a b"]}, "source_words: expected distinct sorted tokens"),
        ({"source_words": []}, "source_words: expected at least one token"),
        ({"source_lengths": [3, 1]}, "source_lengths"),
        ({"longest_target": -1}, "longest_target: expected an int >= 0"),
    ],
)
def test_bad_vocabularies_are_named(options: dict[str, object], message: str) -> None:
    good = {"source_words": ["a"], "target_words": ["b"], "source_lengths": [1, 2]}
    with pytest.raises(ValueError, match=message):
        TextPairsTask(**{"longest_target": 1, **good, **options})  # type: ignore[arg-type]


def test_character_tokens(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("ab c\tc ba\nb\t\n")
    pairs = read_pairs(path, "chars")
    assert pairs[0].source == ("a", "b", " ", "c") and pairs[1].target == ()
    task = TextPairsTask.from_pairs(pairs, "chars")
    assert task.source_words == (" ", "a", "b", "c") and task.tokens == "chars"
    assert TextPairsTask(**task.options()).options() == task.options()
    (tmp_path / "new.txt").write_text("cab\n")
    assert read_sources(tmp_path / "new.txt", "chars") == [
        (("c", "a", "b"), f"{tmp_path / 'new.txt'}, line 1")
    ]
    with pytest.raises(ValueError, match="single characters other than tabs"):
        TextPairsTask(["ab"], ["a"], (1, 1), 1, tokens="chars")
    with pytest.raises(UserError, match="tokens: expected one of words, chars, got 'bytes'"):
        read_pairs(path, "bytes")  # type: ignore[arg-type]


def test_a_header_line_is_read_as_a_pair_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "p.tsv").write_text("Source\tTarget\na b\tb a\n")
    with pytest.warns(UserWarning, match=r"p\.tsv, line 1: 'Source\\tTarget' looks like a header"):
        pairs = read_pairs(tmp_path / "p.tsv")
    assert pairs[0].source == ("Source",) and len(pairs) == 2
    (tmp_path / "q.tsv").write_text("a b\tb a\nsource\ttarget\n")  # only a first line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_pairs(tmp_path / "q.tsv")
