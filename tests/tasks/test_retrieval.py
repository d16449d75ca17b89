"""Associative retrieval: well-formed examples, answers by a plain dictionary, splits
as arrays and back."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    read = splits_from_arrays(splits_to_arrays(made), 3, 4, sizes)
    assert (read.pairs, read.seed) == (4, 3)
    for split in ("train", "validation", "test"):
        for a, b in zip(getattr(read, split), getattr(made, split), strict=True):
            assert (a == b).all()
    assert len(made.train[0]) == 50 and len(made.test[1]) == 30
    other = make_splits(4, 4, sizes)
    assert not (other.train[0] == made.train[0]).all()


_SIZES = (10, 10, 10)
_ARRAYS = splits_to_arrays(make_splits(0, 4, _SIZES))


def _read(**changes: np.ndarray) -> object:
    return splits_from_arrays({**_ARRAYS, **changes}, 0, 4, _SIZES)


def test_damaged_arrays_are_refused() -> None:
    with pytest.raises(ValueError, match=r"test: symbol ids outside 0\.\.36"):
        _read(test_inputs=_ARRAYS["test_inputs"] + 37)
    with pytest.raises(ValueError, match="validation: inputs"):
        _read(validation_targets=_ARRAYS["validation_targets"][:3])
    with pytest.raises(ValueError, match="train: inputs"):
        splits_from_arrays(_ARRAYS, 0, 5, _SIZES)  # the inputs of 4 pairs are too short for 5
    with pytest.raises(KeyError, match="train_inputs"):
        splits_from_arrays({}, 0, 4, _SIZES)


def test_arrays_of_other_sizes_shapes_or_types_are_refused() -> None:
    with pytest.raises(ValueError, match=r"train: inputs \(10, 11\) .* not \(12, 11\)"):
        splits_from_arrays(_ARRAYS, 0, 4, (12, 10, 10))
    with pytest.raises(ValueError, match=r"test: inputs \(10, 11\) and targets \(\)"):
        _read(test_targets=np.array(3))
    with pytest.raises(ValueError, match=r"test: .* targets \(10, 1\)"):
        _read(test_targets=_ARRAYS["test_targets"][:, None])
    with pytest.raises(ValueError, match="train_inputs: expected integers, got dtype float64"):
        _read(train_inputs=_ARRAYS["train_inputs"].astype(float))
    with pytest.raises(ValueError, match="validation_targets: expected integers, got dtype bool"):
        _read(validation_targets=_ARRAYS["validation_targets"] > 4)


def _edited(split: str, row: int, text: str, target: int | None = None) -> dict[str, np.ndarray]:
    inputs, targets = _ARRAYS[f"{split}_inputs"].copy(), _ARRAYS[f"{split}_targets"].copy()
    inputs[row] = from_text(text)
    targets[row] = answer(text) if target is None else target
    return {f"{split}_inputs": inputs, f"{split}_targets": targets}


@pytest.mark.parametrize(
    ("text", "target", "problem"),
    [
        ("c9k81j3f??c", 9, "a key that is not a letter"),
        ("c9k8c3f1??c", 9, "a key twice"),
        ("c9kaj3f1??c", 9, "a value that is not a digit"),
        ("c9k8j3f1?cc", 9, r"no \?\? before the query"),
        ("c9k8j3f1??z", 9, "a query that is not a key"),
        ("c9k8j3f1??c", 8, "a target that is not the digit stored with the query"),
        ("c9k8j3f1??c", 10, "a target that is not the digit stored with the query"),
        ("c9k8j3f1??c", -1, "a target that is not the digit stored with the query"),
    ],
)
def test_symbols_in_range_that_are_not_examples_are_refused(
    text: str, target: int, problem: str
) -> None:
    with pytest.raises(
        ValueError, match=rf"validation: example 7 \({re.escape(text)} -> {target}\) has {problem}"
    ):
        _read(**_edited("validation", 7, text, target))


@settings(max_examples=300)
@given(st.data())
def test_the_check_agrees_with_answer_on_random_edits(data: st.DataObject) -> None:
    """An edit may leave a valid example (another unused letter, another unasked digit)."""
    split = data.draw(st.sampled_from(["train", "validation", "test"]))
    inputs, targets = _ARRAYS[f"{split}_inputs"].copy(), _ARRAYS[f"{split}_targets"].copy()
    for _ in range(data.draw(st.integers(1, 3))):
        row, column = data.draw(st.integers(0, 9)), data.draw(st.integers(-1, inputs.shape[1]))
        if column < 0 or column == inputs.shape[1]:
            targets[row] = data.draw(st.integers(-2, 12))
        else:
            inputs[row, column] = data.draw(st.integers(0, VOCAB_SIZE - 1))
    bad = []
    for i, (row, target) in enumerate(zip(inputs, targets, strict=True)):
        try:
            if answer(to_text(row)) != target:
                bad.append(i)
        except ValueError:
            bad.append(i)
    changes = {f"{split}_inputs": inputs, f"{split}_targets": targets}
    if bad:
        with pytest.raises(ValueError, match=rf"{split}: example {bad[0]} "):
            _read(**changes)
    else:
        _read(**changes)


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
