"""Associative retrieval: well-formed examples, answers by a plain dictionary, splits
written once and refused when they disagree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memrnn.errors import UserError
from memrnn.tasks.retrieval import (
    VOCAB_SIZE,
    answer,
    from_text,
    load_or_make_splits,
    make_splits,
    sample,
    to_text,
)


@pytest.mark.parametrize("pairs", [1, 4, 8, 26])
def test_every_example_is_well_formed_and_answered_by_a_dictionary(pairs: int) -> None:
    inputs, targets = sample(np.random.default_rng(pairs), 500, pairs)
    assert inputs.shape == (500, 2 * pairs + 3) and inputs.max() < VOCAB_SIZE == 37
    for row, target in zip(inputs, targets, strict=True):
        text = to_text(row)
        keys = text[0 : 2 * pairs : 2]
        assert len(set(keys)) == pairs and keys.isalpha()  # without replacement
        assert text[1 : 2 * pairs : 2].isdigit() and text[2 * pairs : 2 * pairs + 2] == "??"
        assert answer(text) == target
        assert (from_text(text) == row).all()


def test_the_paper_example() -> None:
    assert answer("c9k8j3f1??c") == 9 and answer("c9k8j3f1??j") == 3
    assert to_text(from_text("c9k8j3f1??c")) == "c9k8j3f1??c"


def test_queries_cover_every_position_and_values_every_digit() -> None:
    inputs, targets = sample(np.random.default_rng(0), 4000, 4)
    positions = [to_text(r)[0:8:2].index(to_text(r)[-1]) for r in inputs]
    assert set(positions) == {0, 1, 2, 3} and set(targets.tolist()) == set(range(10))
    counts = np.bincount(targets, minlength=10)
    assert counts.min() > 300  # uniform: 400 expected per digit


@pytest.mark.parametrize("text", ["c9k8j3f1?c", "c9c8??c", "c9k8??j", "C9??C", "c99??c", "??"])
def test_malformed_examples_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not an associative-retrieval example"):
        answer(text)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match=r"pairs: expected an int in 1\.\.26"):
        sample(np.random.default_rng(0), 3, 27)
    with pytest.raises(ValueError, match="'!' is not a symbol"):
        from_text("a1??a!")


def test_splits_are_written_once_and_reused(tmp_path: Path) -> None:
    sizes = (50, 20, 30)
    first = load_or_make_splits(tmp_path, 3, 4, sizes)
    (path,) = tmp_path.glob("*.npz")
    written = path.stat().st_mtime_ns
    again = load_or_make_splits(tmp_path, 3, 4, sizes)
    memory = make_splits(3, 4, sizes)
    assert path.stat().st_mtime_ns == written
    for split in ("train", "validation", "test"):
        for a, b, c in zip(
            getattr(first, split), getattr(again, split), getattr(memory, split), strict=True
        ):
            assert (a == b).all() and (a == c).all()
    assert len(first.train[0]) == 50 and len(first.test[1]) == 30
    other = make_splits(4, 4, sizes)
    assert not (other.train[0] == first.train[0]).all()


def test_a_file_with_other_parameters_is_refused(tmp_path: Path) -> None:
    sizes = (10, 10, 10)
    load_or_make_splits(tmp_path, 0, 4, sizes)
    (path,) = tmp_path.glob("*.npz")
    path.rename(tmp_path / path.name.replace("seed0", "seed1"))
    with pytest.raises(UserError, match="the file records"):
        load_or_make_splits(tmp_path, 1, 4, sizes)
    path.write_bytes(b"not a zip")
    with pytest.raises(UserError, match="cannot read the retrieval splits"):
        load_or_make_splits(tmp_path, 0, 4, sizes)
