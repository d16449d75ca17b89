"""The splits: Table 2's lengths, sizes in tokens, determinism and nesting, and their
arrays through a file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.errors import UserError
from memrnn.io import load_or_make, save_arrays
from memrnn.languages.dyck import (
    SPLITS_FORMAT,
    TOKEN_DTYPE,
    DyckSplits,
    SplitParams,
    length_ranges,
    make_splits,
    sample_splits,
    split_params,
    splits_file_name,
    splits_from_arrays,
    splits_meta,
    splits_to_arrays,
)
from tests.languages.dyck.helpers import direct


def test_length_ranges_are_table_2() -> None:
    assert length_ranges(3) == ((1, 84), (85, 168))
    assert length_ranges(5) == ((1, 180), (181, 360))
    for m in (3, 5):
        (_, hi), (test_lo, test_hi) = length_ranges(m)
        assert (test_lo, test_hi) == (hi + 1, 2 * hi)
    with pytest.raises(ValueError, match="m"):
        length_ranges(4)


def test_splits_hold_the_tokens_asked_for() -> None:
    splits = make_splits(3, 3, 0, 2000, 500, 1500)
    (train_lo, train_hi), (test_lo, test_hi) = length_ranges(3)
    for name, asked, lo, hi in [
        ("train", 2000, train_lo, train_hi),
        ("dev", 500, train_lo, train_hi),
        ("test", 1500, test_lo, test_hi),
    ]:
        strings = getattr(splits, name)
        assert strings.num_tokens >= asked > strings.num_tokens - int(strings.lengths[-1])
        assert strings.lengths.min() >= lo and strings.lengths.max() <= hi
        assert all(direct(s.tolist(), 3, 3) for s in strings)
    empty = make_splits(3, 3, 0, 0, 0, 0)
    assert len(empty.train) == len(empty.dev) == len(empty.test) == 0


def test_splits_are_deterministic_and_nested() -> None:
    small = make_splits(2, 3, 5, 1000, 300, 600)
    again = make_splits(2, 3, 5, 1000, 300, 600)
    large = make_splits(2, 3, 5, 5000, 300, 600)
    other = make_splits(2, 3, 6, 1000, 300, 600)
    for name in ("train", "dev", "test"):
        assert np.array_equal(getattr(small, name).tokens, getattr(again, name).tokens)
        assert np.array_equal(getattr(small, name).offsets, getattr(again, name).offsets)
        assert not np.array_equal(getattr(small, name).tokens, getattr(other, name).tokens)
    for name in ("dev", "test"):  # the same for every training size
        assert np.array_equal(getattr(small, name).tokens, getattr(large, name).tokens)
    n = small.train.num_tokens
    assert np.array_equal(large.train.tokens[:n], small.train.tokens)


def load_or_make_splits(folder: Path, params: SplitParams) -> DyckSplits:
    return load_or_make(
        folder / splits_file_name(params),
        splits_meta(params),
        lambda: sample_splits(params),
        "Dyck splits",
        to_arrays=splits_to_arrays,
        from_arrays=lambda arrays: splits_from_arrays(arrays, params),
    )


def test_splits_round_trip_through_arrays() -> None:
    made = make_splits(2, 3, 1, 800, 200, 400)
    arrays = splits_to_arrays(made)
    assert sorted(arrays) == sorted(
        f"{s}_{a}" for s in ("train", "dev", "test") for a in ("tokens", "offsets")
    )
    read = splits_from_arrays(arrays, made.params)
    assert read.params == made.params
    for name in ("train", "dev", "test"):
        assert np.array_equal(getattr(read, name).tokens, getattr(made, name).tokens)
        assert np.array_equal(getattr(read, name).offsets, getattr(made, name).offsets)
        assert getattr(read, name).tokens.dtype == TOKEN_DTYPE


def test_damaged_arrays_are_refused() -> None:
    made = make_splits(1, 2, 0, 100, 10, 10, train_lengths=(1, 9), test_lengths=(9, 21))
    arrays = splits_to_arrays(made)
    with pytest.raises(ValueError, match=r"dev: token ids outside 0\.\.2"):
        splits_from_arrays({**arrays, "dev_tokens": arrays["dev_tokens"] + 3}, made.params)
    with pytest.raises(ValueError, match="offsets"):
        splits_from_arrays({**arrays, "test_offsets": arrays["test_offsets"][:-1]}, made.params)
    with pytest.raises(KeyError, match="train_tokens"):
        splits_from_arrays({"dev_tokens": arrays["dev_tokens"]}, made.params)


def test_the_file_names_every_parameter_and_records_the_format() -> None:
    params = split_params(2, 3, 1, 800, 200, 400)
    assert splits_file_name(params) == "dyck_k2_m3_seed1_train800_dev200_test400_len1-84_85-168.npz"
    assert splits_meta(params) == {
        "format": SPLITS_FORMAT,
        "language": "dyck",
        "k": 2,
        "m": 3,
        "seed": 1,
        "train_tokens": 800,
        "dev_tokens": 200,
        "test_tokens": 400,
        "train_lengths": (1, 84),
        "test_lengths": (85, 168),
    }


def test_splits_round_trip_through_the_file(tmp_path: Path) -> None:
    params = split_params(2, 3, 1, 800, 200, 400)
    made = load_or_make_splits(tmp_path, params)
    (path,) = tmp_path.glob("*.npz")
    np.load(path, allow_pickle=False)  # no pickles inside
    read = load_or_make_splits(tmp_path, params)
    for name in ("train", "dev", "test"):
        assert np.array_equal(getattr(read, name).tokens, getattr(made, name).tokens)
        assert np.array_equal(getattr(read, name).offsets, getattr(made, name).offsets)


def test_a_damaged_file_is_an_error_naming_it(tmp_path: Path) -> None:
    params = split_params(1, 2, 0, 100, 10, 10, train_lengths=(1, 9), test_lengths=(9, 21))
    made = sample_splits(params)
    arrays = {**splits_to_arrays(made), "train_tokens": made.train.tokens + 5}
    save_arrays(tmp_path / splits_file_name(params), splits_meta(params), arrays)
    with pytest.raises(UserError, match=r"seed0.*damaged Dyck splits \(train: token ids"):
        load_or_make_splits(tmp_path, params)


_PARAMS = split_params(2, 3, 0, 300, 100, 200, train_lengths=(3, 20), test_lengths=(21, 40))
_MADE = sample_splits(_PARAMS)


def _with(
    name: str, tokens: np.ndarray, offsets: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    arrays = {**splits_to_arrays(_MADE), f"{name}_tokens": tokens}
    return arrays if offsets is None else {**arrays, f"{name}_offsets": offsets}


def _replaced(name: str, string: int, word: list[int]) -> dict[str, np.ndarray]:
    """The arrays with string ``string`` of split ``name`` replaced by ``word``."""
    strings = getattr(_MADE, name)
    words = [s.tolist() for s in strings]
    words[string] = word
    offsets = np.cumsum([0, *map(len, words)])
    return _with(name, np.concatenate(words).astype(TOKEN_DTYPE), offsets)


def _length(name: str, string: int) -> int:
    return int(getattr(_MADE, name).lengths[string])


# Words of Dyck-(2,3) but for one thing, as long as the string they replace (always odd):
# 0, 1 open, 2, 3 close them, 4 ends.
_NOT_DYCK = {
    "crossed": (
        "train",
        2,
        lambda n: [0, 1, 2, 3, *[0, 2] * ((n - 5) // 2), 4],
        "a close bracket of another type",
    ),
    "a close first": (
        "dev",
        1,
        lambda n: [2, 0, *[0, 2] * ((n - 3) // 2), 4],
        "a close bracket with no open",
    ),
    "too deep": (
        "test",
        0,
        lambda n: [0] * 4 + [2] * 4 + [0, 2] * ((n - 9) // 2) + [4],
        "more than 3 open",
    ),
    "left open": (
        "train",
        0,
        lambda n: [0, 0, *[0, 2] * ((n - 3) // 2), 4],
        "open brackets left at the end",
    ),
    "no end": (
        "train",
        3,
        lambda n: [*[0, 2] * ((n - 1) // 2), 0],
        "the end symbol must come once, last",
    ),
    "an end first": (
        "dev",
        0,
        lambda n: [4, *[0, 2] * ((n - 1) // 2)],
        "the end symbol must come once, last",
    ),
}


@pytest.mark.parametrize("case", sorted(_NOT_DYCK))
def test_strings_that_are_not_dyck_words_are_refused(case: str, tmp_path: Path) -> None:
    name, string, word, problem = _NOT_DYCK[case]
    assert _length(name, string) >= 9 or name != "test"
    arrays = _replaced(name, string, word(_length(name, string)))
    with pytest.raises(
        ValueError, match=rf"{name}: string {string} is not a word of Dyck-\(2,3\): {problem}"
    ):
        splits_from_arrays(arrays, _PARAMS)
    save_arrays(tmp_path / splits_file_name(_PARAMS), splits_meta(_PARAMS), arrays)
    with pytest.raises(
        UserError, match=rf"_seed0_.*: damaged Dyck splits \({name}: string {string} is not"
    ):
        load_or_make_splits(tmp_path, _PARAMS)


def test_ids_a_cast_would_wrap_and_non_integers_are_refused() -> None:
    wrapped = _MADE.train.tokens.astype(np.int64) + 2**32  # as int32, the very same ids
    with pytest.raises(ValueError, match=r"train: token ids outside 0\.\.4"):
        splits_from_arrays(_with("train", wrapped), _PARAMS)
    with pytest.raises(ValueError, match="dev_tokens: expected integers, got dtype float64"):
        splits_from_arrays(_with("dev", _MADE.dev.tokens.astype(float)), _PARAMS)
    with pytest.raises(ValueError, match="test: tokens and offsets: expected 1-d"):
        splits_from_arrays(_with("test", _MADE.test.tokens.reshape(1, -1)), _PARAMS)


def test_strings_of_other_lengths_or_number_are_refused() -> None:
    with pytest.raises(ValueError, match=r"train: string 1 has 23 tokens, not 3 to 20"):
        splits_from_arrays(_replaced("train", 1, [0, 2] * 11 + [4]), _PARAMS)
    test = _MADE.test
    n = len(test) - 1
    cut = test.tokens[: test.offsets[n]], test.offsets[: n + 1]
    with pytest.raises(
        ValueError, match=rf"test: {n} strings of \d+ tokens, not the strings drawn until 200"
    ):
        splits_from_arrays(_with("test", *cut), _PARAMS)
    extra = (
        np.concatenate([test.tokens, test[0]]),
        np.append(test.offsets, test.num_tokens + len(test[0])),
    )
    with pytest.raises(ValueError, match=r"test: .* strings .* not the strings drawn until 200"):
        splits_from_arrays(_with("test", *extra), _PARAMS)


@settings(max_examples=300)
@given(st.data())
def test_the_check_agrees_with_definition_1_on_random_edits(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(["train", "dev", "test"]))
    strings = getattr(_MADE, name)
    tokens = strings.tokens.copy()
    for i in data.draw(st.lists(st.integers(0, tokens.size - 1), min_size=1, max_size=4)):
        tokens[i] = data.draw(st.integers(0, 4))
    words = [
        tokens[a:b].tolist() for a, b in zip(strings.offsets[:-1], strings.offsets[1:], strict=True)
    ]
    bad = [i for i, word in enumerate(words) if not direct(word, 2, 3)]
    if bad:
        with pytest.raises(ValueError, match=rf"{name}: string {bad[0]} is not a word"):
            splits_from_arrays(_with(name, tokens), _PARAMS)
    else:
        read = splits_from_arrays(_with(name, tokens), _PARAMS)
        assert np.array_equal(getattr(read, name).tokens, tokens)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: make_splits(2, 4, 0, 10), "m"),
        (lambda: make_splits(2, 3, -1, 10), "seed"),
        (lambda: make_splits(2, 3, 0, -10), "train_tokens"),
        (lambda: make_splits(2, 3, 0, 10, dev_tokens=None), "dev_tokens"),
        (lambda: make_splits(2, 3, 0, 10, train_lengths=(9, 3)), r"train_lengths\[0\]"),
        (lambda: make_splits(2, 3, 0, 10, test_lengths=(4, 4)), r"test_lengths"),
        (lambda: make_splits(2, 3, 0, 10, test_lengths=5), "test_lengths"),
        (lambda: make_splits(2**31, 3, 0, 10), r"k: expected an int in 1\.\.1073741823"),
        (lambda: make_splits(2, 3, 0, 10, test_lengths=(1, 10**6 + 1)), r"m, test_lengths\[1\]"),
    ],
)
def test_bad_arguments_name_themselves(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
