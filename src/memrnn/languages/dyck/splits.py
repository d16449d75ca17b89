"""Training, development and test sets of Dyck-(k,m) (Hewitt et al. 2020, Appendix H.1).

Each split is sized in tokens and drawn from the sampler's law conditioned on a length
range: Table 2's, which gives no formula (the text only asks that the longest training
strings reach the full stack and return about three times), so :func:`length_ranges` knows
m = 3 and m = 5 only. The splits turn into named arrays and back
(:func:`splits_to_arrays`, :func:`splits_from_arrays`) for :func:`memrnn.io.load_or_make`
to keep them in a file; nothing here touches the disk.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from memrnn.languages.dyck.counting import (
    check_length_range,
    check_table_size,
    push_probabilities,
)
from memrnn.languages.dyck.sampler import walk
from memrnn.languages.dyck.tokens import MAX_K, TOKEN_DTYPE
from memrnn.validation import check_int, is_int

_LENGTH_RANGES = {3: ((1, 84), (85, 168)), 5: ((1, 180), (181, 360))}


def length_ranges(m: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Table 2's (train, test) length ranges, each (min, max) inclusive, for depth bound m.

    Lengths count the end symbol. The paper gives only m = 3 and m = 5.

    Raises:
        ValueError: ``m`` is not 3 or 5.
    """
    if not is_int(m) or int(m) not in _LENGTH_RANGES:
        raise ValueError(
            "m: Table 2 of Hewitt et al. (2020) gives length ranges for m = 3 and m = 5 only, "
            f"got {m!r}; pass the lengths explicitly"
        )
    return _LENGTH_RANGES[int(m)]


@dataclass(frozen=True, eq=False)
class DyckStrings:
    """Strings stored flat: string i is ``tokens[offsets[i]:offsets[i + 1]]``.

    Attributes:
        tokens: every string's token ids, one after the other (1-d, ``TOKEN_DTYPE``).
        offsets: the start of each string and the end of the last (1-d, int64, from 0).
    """

    tokens: np.ndarray
    offsets: np.ndarray

    def __post_init__(self) -> None:
        if self.tokens.ndim != 1 or self.offsets.ndim != 1 or self.offsets.size == 0:
            raise ValueError("tokens and offsets: expected 1-d arrays, offsets not empty")
        if self.offsets[0] != 0 or self.offsets[-1] != self.tokens.size:
            raise ValueError(
                f"offsets: expected to run from 0 to {self.tokens.size}, "
                f"got {self.offsets[0]} to {self.offsets[-1]}"
            )
        if np.any(np.diff(self.offsets) < 1):
            raise ValueError("offsets: every string must hold at least one token")

    def __len__(self) -> int:
        return self.offsets.size - 1

    def __getitem__(self, i: int) -> np.ndarray:
        """String i (a view into ``tokens``)."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"string {i} of {len(self)}")
        i %= len(self)
        return self.tokens[self.offsets[i] : self.offsets[i + 1]]

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[i] for i in range(len(self)))

    @property
    def num_tokens(self) -> int:
        """Tokens in all strings, end symbols included."""
        return int(self.tokens.size)

    @property
    def lengths(self) -> np.ndarray:
        """Each string's length, end symbol included."""
        return np.diff(self.offsets)


@dataclass(frozen=True)
class SplitParams:
    """What determines a set of splits (and is recorded in its file).

    Attributes:
        k, m: the language.
        seed: the seed of all three splits.
        train_tokens, dev_tokens, test_tokens: the least number of tokens each split holds.
        train_lengths, test_lengths: (min, max) lengths; dev uses ``train_lengths``.
    """

    k: int
    m: int
    seed: int
    train_tokens: int
    dev_tokens: int
    test_tokens: int
    train_lengths: tuple[int, int]
    test_lengths: tuple[int, int]


@dataclass(frozen=True, eq=False)
class DyckSplits:
    """Training, development and test strings of Dyck-(k,m) (Appendix H.1)."""

    params: SplitParams
    train: DyckStrings
    dev: DyckStrings
    test: DyckStrings


_BLOCK = 1 << 14  # random numbers drawn at a time while filling a split


def _endless(draw: Callable[[], np.ndarray]) -> Iterator[Any]:
    while True:
        yield from draw().tolist()


def _sample_tokens(
    rng: np.random.Generator, k: int, m: int, lengths: tuple[int, int], tokens: int
) -> DyckStrings:
    """Strings drawn until they hold at least ``tokens`` tokens (the last may overshoot)."""
    push = push_probabilities(m, *lengths)
    uniforms = _endless(lambda: rng.random(_BLOCK))
    brackets = _endless(lambda: rng.integers(k, size=_BLOCK))
    flat: list[int] = []
    offsets = [0]
    while len(flat) < tokens:
        flat.extend(walk(k, push, uniforms, brackets))
        offsets.append(len(flat))
    return DyckStrings(np.array(flat, dtype=TOKEN_DTYPE), np.array(offsets, dtype=np.int64))


def split_params(
    k: int,
    m: int,
    seed: int,
    train_tokens: int,
    dev_tokens: int = 20_000,
    test_tokens: int = 300_000,
    *,
    train_lengths: tuple[int, int] | None = None,
    test_lengths: tuple[int, int] | None = None,
) -> SplitParams:
    """The parameters of :func:`make_splits`, checked, with the length ranges filled in.

    Raises:
        ValueError: a bad argument; m other than 3 or 5 without both length ranges.
    """
    k, m = check_int("k", k, 1, MAX_K), check_int("m", m, 1)
    if train_lengths is None or test_lengths is None:
        default_train, default_test = length_ranges(m)
        train_lengths = default_train if train_lengths is None else train_lengths
        test_lengths = default_test if test_lengths is None else test_lengths
    ranges = []
    for name, value in (("train_lengths", train_lengths), ("test_lengths", test_lengths)):
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise ValueError(f"{name}: expected (min_length, max_length), got {value!r}")
        ranges.append(check_length_range(*value, names=(f"{name}[0]", f"{name}[1]")))
        check_table_size(m, ranges[-1][1], f"{name}[1]")
    return SplitParams(
        k=k,
        m=m,
        seed=check_int("seed", seed, 0),
        train_tokens=check_int("train_tokens", train_tokens, 0),
        dev_tokens=check_int("dev_tokens", dev_tokens, 0),
        test_tokens=check_int("test_tokens", test_tokens, 0),
        train_lengths=ranges[0],
        test_lengths=ranges[1],
    )


def sample_splits(params: SplitParams) -> DyckSplits:
    """The splits :func:`make_splits` describes, for parameters from :func:`split_params`."""
    # One stream per split: dev and test do not depend on the training size (the paper uses
    # identical dev and test sets for every training size), and a smaller training set is
    # the start of a larger one.
    train, dev, test = (
        np.random.default_rng(s) for s in np.random.SeedSequence(params.seed).spawn(3)
    )
    k, m = params.k, params.m
    return DyckSplits(
        params=params,
        train=_sample_tokens(train, k, m, params.train_lengths, params.train_tokens),
        dev=_sample_tokens(dev, k, m, params.train_lengths, params.dev_tokens),
        test=_sample_tokens(test, k, m, params.test_lengths, params.test_tokens),
    )


def make_splits(
    k: int,
    m: int,
    seed: int,
    train_tokens: int,
    dev_tokens: int = 20_000,
    test_tokens: int = 300_000,
    *,
    train_lengths: tuple[int, int] | None = None,
    test_lengths: tuple[int, int] | None = None,
) -> DyckSplits:
    """Training, development and test sets of Dyck-(k,m), sized in tokens (Appendix H.1).

    Each split is filled with the sampler's law (:mod:`memrnn.languages.dyck.sampler`)
    until it holds at least the requested number of tokens (end symbols included); the last
    string may overshoot, by less than the range's maximum length. Train and dev use the
    training lengths, test the test lengths. Each split has its own random stream spawned
    from ``seed``, so the same seed gives the same dev and test sets for every training
    size, and the training set for fewer tokens is the first strings of the one for more.

    Args:
        k, m: the language.
        seed: an int >= 0.
        train_tokens, dev_tokens, test_tokens: ints >= 0 (0 gives an empty split).
        train_lengths, test_lengths: (min, max) lengths; default :func:`length_ranges`.

    Raises:
        ValueError: a bad argument; m other than 3 or 5 without both length ranges.
    """
    return sample_splits(
        split_params(
            k,
            m,
            seed,
            train_tokens,
            dev_tokens,
            test_tokens,
            train_lengths=train_lengths,
            test_lengths=test_lengths,
        )
    )


SPLITS_FORMAT = 1
"""The version of what :func:`splits_to_arrays` gives: bump it when the sampler or the
arrays' layout changes, so that files of the old splits are refused."""

_SPLITS = ("train", "dev", "test")


def splits_meta(params: SplitParams) -> dict[str, Any]:
    """What a file of the splits records beside the arrays: the format and the parameters."""
    return {"format": SPLITS_FORMAT, "language": "dyck", **dataclasses.asdict(params)}


def splits_file_name(params: SplitParams) -> str:
    """A file name that names every parameter, so that different splits live side by side:
    ``dyck_k{k}_m{m}_seed{seed}_train{..}_dev{..}_test{..}_len{a}-{b}_{c}-{d}.npz``."""
    (a, b), (c, d) = params.train_lengths, params.test_lengths
    return (
        f"dyck_k{params.k}_m{params.m}_seed{params.seed}_train{params.train_tokens}"
        f"_dev{params.dev_tokens}_test{params.test_tokens}_len{a}-{b}_{c}-{d}.npz"
    )


def splits_to_arrays(splits: DyckSplits) -> dict[str, np.ndarray]:
    """Each split's flat tokens and offsets, as ``train_tokens``, ``train_offsets``, ..."""
    arrays: dict[str, np.ndarray] = {}
    for name in _SPLITS:
        strings: DyckStrings = getattr(splits, name)
        arrays[f"{name}_tokens"] = strings.tokens
        arrays[f"{name}_offsets"] = strings.offsets
    return arrays


def splits_from_arrays(arrays: Mapping[str, np.ndarray], params: SplitParams) -> DyckSplits:
    """The splits :func:`splits_to_arrays` gave ``arrays`` for, made with ``params``.

    Raises:
        KeyError: an array is missing.
        ValueError: offsets that do not cut the tokens into strings, or a token that is not
            an id of Dyck-(k, .).
    """
    loaded = {
        name: DyckStrings(
            arrays[f"{name}_tokens"].astype(TOKEN_DTYPE, copy=False),
            arrays[f"{name}_offsets"].astype(np.int64, copy=False),
        )
        for name in _SPLITS
    }
    for name, strings in loaded.items():
        if np.any((strings.tokens < 0) | (strings.tokens > 2 * params.k)):
            raise ValueError(f"{name}: token ids outside 0..{2 * params.k}")
    return DyckSplits(params=params, **loaded)
