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


def _strings(arrays: Mapping[str, np.ndarray], name: str, k: int) -> DyckStrings:
    """Split ``name``'s strings as stored, its ids checked before any cast could wrap them."""
    tokens, offsets = arrays[f"{name}_tokens"], arrays[f"{name}_offsets"]
    for array, what in ((tokens, "tokens"), (offsets, "offsets")):
        if not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"{name}_{what}: expected integers, got dtype {array.dtype}")
    if np.any((tokens < 0) | (tokens > 2 * k)):
        raise ValueError(f"{name}: token ids outside 0..{2 * k}")
    try:
        return DyckStrings(tokens.astype(TOKEN_DTYPE), offsets.astype(np.int64))
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from exc


def _check_sizes(name: str, strings: DyckStrings, lengths: tuple[int, int], asked: int) -> None:
    """As :func:`_sample_tokens` fills a split: lengths in range, and strings until the
    split holds ``asked`` tokens, the last one crossing it."""
    (lo, hi), n = lengths, len(strings)
    outside = np.flatnonzero((strings.lengths < lo) | (strings.lengths > hi))
    if outside.size:
        i = int(outside[0])
        raise ValueError(f"{name}: string {i} has {strings.lengths[i]} tokens, not {lo} to {hi}")
    before_last = strings.num_tokens - (int(strings.lengths[-1]) if n else 0)
    if not ((n == 0 and asked == 0) or before_last < asked <= strings.num_tokens):
        raise ValueError(
            f"{name}: {n} strings of {strings.num_tokens} tokens, not the strings drawn until "
            f"{asked} tokens"
        )


def _check_words(name: str, strings: DyckStrings, k: int, m: int) -> None:
    """ValueError naming the first string of ``strings`` not in Dyck-(k,m), checked for all
    strings at once: the end symbol once, last; the depth within 0..m and 0 at the end;
    every close bracket of the type of the open bracket it closes. Each check looks only
    at the strings before the first bad one the checks before it found, whose properties
    it relies on."""
    tokens, offsets, end = strings.tokens, strings.offsets, 2 * k
    found: list[tuple[int, str]] = []  # the first bad string so far, and why

    def record(position: int, problem: str) -> int:
        i = int(np.searchsorted(offsets, position, side="right")) - 1
        found[:] = [(i, problem)]
        return int(offsets[i])

    is_end = tokens == end
    misplaced = is_end.copy()
    misplaced[offsets[1:] - 1] ^= True  # an end symbol not last, or a last token not one
    limit = tokens.size
    if misplaced.any():
        limit = record(int(np.argmax(misplaced)), "the end symbol must come once, last")
    tokens, is_end = tokens[:limit], is_end[:limit]
    step = (tokens < k).astype(np.int8) - ((tokens >= k) & ~is_end).astype(np.int8)
    depth = np.cumsum(step, dtype=np.int32)  # across strings, as each ends at depth 0
    firsts = [
        (int(np.argmax(bad)), problem)
        for bad, problem in (
            (depth < 0, "a close bracket with no open bracket"),
            (depth > m, f"more than {m} open brackets"),
            (is_end & (depth != 0), "open brackets left at the end"),
        )
        if bad.any()
    ]
    if firsts:
        limit = record(*min(firsts))
    tokens, is_end, depth = tokens[:limit], is_end[:limit], depth[:limit]
    # An open bracket at depth d pairs with the next close bracket that leaves depth d: in
    # a stable sort by that depth, pairs come out side by side, open then close.
    brackets = np.flatnonzero(~is_end)
    level = np.where(tokens < k, depth, depth + 1)[brackets]
    order = brackets[np.argsort(level, kind="stable")]
    opens, closes = order[0::2], order[1::2]
    mismatched = closes[tokens[closes] != tokens[opens] + k]
    if mismatched.size:
        record(int(mismatched.min()), "a close bracket of another type than its open bracket")
    if found:
        i, problem = found[0]
        raise ValueError(f"{name}: string {i} is not a word of Dyck-({k},{m}): {problem}")


def splits_from_arrays(arrays: Mapping[str, np.ndarray], params: SplitParams) -> DyckSplits:
    """The splits :func:`splits_to_arrays` gave ``arrays`` for, made with ``params``.

    Every string is checked to be what :func:`sample_splits` draws: a word of
    Dyck-(k,m), of a length in its split's range, as many as fill the split's tokens.

    Raises:
        KeyError: an array is missing.
        ValueError: arrays that are not integers, offsets that do not cut the tokens into
            strings, a token that is not an id of Dyck-(k, .), a string that is not a word
            of Dyck-(k,m) or of a length outside its range, or a split not of its size.
    """
    loaded = {name: _strings(arrays, name, params.k) for name in _SPLITS}
    lengths = {"train": params.train_lengths, "dev": params.train_lengths}
    for name, strings in loaded.items():
        asked = getattr(params, f"{name}_tokens")
        _check_sizes(name, strings, lengths.get(name, params.test_lengths), asked)
        _check_words(name, strings, params.k, params.m)
    return DyckSplits(params=params, **loaded)
