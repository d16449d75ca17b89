"""Associative retrieval: well-formed examples, answers by a plain dictionary, splits
as arrays and back."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.tasks.retrieval import (
    SPLITS_FORMAT,
    VOCAB_SIZE,
    answer,
    from_text,
    make_splits,
    sample,
    splits_file_name,
    splits_from_arrays,
    splits_meta,
    splits_to_arrays,
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
    with pytest.raises(ValueError, match="n: expected an int >= 0, got -1"):
        sample(np.random.default_rng(0), -1)
    with pytest.raises(ValueError, match="'!' is not a symbol"):
        from_text("a1??a!")


def test_splits_round_trip_through_arrays() -> None:
    sizes = (50, 20, 30)
    made = make_splits(3, 4, sizes)
    read = splits_from_arrays(splits_to_arrays(made), 3, 4)
    assert (read.pairs, read.seed) == (4, 3)
    for split in ("train", "validation", "test"):
        for a, b in zip(getattr(read, split), getattr(made, split), strict=True):
            assert (a == b).all()
    assert len(made.train[0]) == 50 and len(made.test[1]) == 30
    other = make_splits(4, 4, sizes)
    assert not (other.train[0] == made.train[0]).all()


def test_damaged_arrays_are_refused() -> None:
    arrays = splits_to_arrays(make_splits(0, 4, (10, 10, 10)))
    with pytest.raises(ValueError, match=r"test: symbol ids outside 0\.\.36"):
        splits_from_arrays({**arrays, "test_inputs": arrays["test_inputs"] + 37}, 0, 4)
    with pytest.raises(ValueError, match="validation: inputs"):
        splits_from_arrays(arrays | {"validation_targets": arrays["validation_targets"][:3]}, 0, 4)
    with pytest.raises(ValueError, match="train: inputs"):
        splits_from_arrays(arrays, 0, 5)  # the inputs of 4 pairs are too short for 5
    with pytest.raises(KeyError, match="train_inputs"):
        splits_from_arrays({}, 0, 4)


def test_the_file_names_every_parameter_and_records_the_format() -> None:
    assert splits_file_name(3, 4, (50, 20, 30)) == "retrieval_seed3_pairs4_50-20-30.npz"
    meta = splits_meta(3, 4, (50, 20, 30))
    assert meta == {
        "format": SPLITS_FORMAT,
        "task": "retrieval",
        "seed": 3,
        "pairs": 4,
        "sizes": (50, 20, 30),
    }
