"""Associative retrieval (Ba et al. 2016, section 4.1).

An example is K key-value pairs, then ``??``, then one of the keys: ``c9k8j3f1??c``. The
keys are distinct letters (drawn without replacement), the values digits (with
replacement), the query one of the K keys, and the target the digit stored with it, here
9. The vocabulary has 37 symbols: ``a``-``z`` (ids 0-25), ``0``-``9`` (ids 26-35) and
``?`` (id 36); a target is a digit 0-9.

Splits of 100,000 / 10,000 / 20,000 examples (the paper's) are drawn from one seed; they
turn into named arrays and back (:func:`splits_to_arrays`, :func:`splits_from_arrays`) for
:func:`memrnn.io.load_or_make` to write them once, so every model of an experiment sees the
same examples. Nothing here touches the disk.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from memrnn.validation import check_int

LETTERS = string.ascii_lowercase
DIGITS = string.digits
SYMBOLS = LETTERS + DIGITS + "?"
VOCAB_SIZE = len(SYMBOLS)  # 37
QUERY = SYMBOLS.index("?")
CLASSES = len(DIGITS)
DEFAULT_PAIRS = 4  # the paper's example c9k8j3f1??c
SPLIT_SIZES = (100_000, 10_000, 20_000)  # train, validation, test
SPLITS_FORMAT = 1
"""The version of what :func:`splits_to_arrays` gives: bump it when :func:`sample` or the
arrays' layout changes, so that files of the old splits are refused."""
_SPLITS = ("train", "validation", "test")


def sequence_length(pairs: int) -> int:
    """2K + 3 symbols: the pairs, ``??`` and the query key."""
    return 2 * pairs + 3


def sample(
    rng: np.random.Generator, n: int, pairs: int = DEFAULT_PAIRS
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` examples: inputs (n, 2K + 3) of symbol ids and targets (n,) of digits 0-9.

    Raises:
        ValueError: ``pairs`` is not in 1..26 or ``n`` is negative.
    """
    check_int("pairs", pairs, 1, len(LETTERS))
    check_int("n", n, 0)
    keys = np.argsort(rng.random((n, len(LETTERS))), axis=1)[:, :pairs]  # without replacement
    values = rng.integers(0, CLASSES, size=(n, pairs))
    asked = rng.integers(0, pairs, size=n)
    inputs = np.empty((n, sequence_length(pairs)), dtype=np.int64)
    inputs[:, 0 : 2 * pairs : 2] = keys
    inputs[:, 1 : 2 * pairs : 2] = len(LETTERS) + values
    inputs[:, 2 * pairs : 2 * pairs + 2] = QUERY
    inputs[:, -1] = keys[np.arange(n), asked]
    return inputs, values[np.arange(n), asked]


def to_text(inputs: np.ndarray) -> str:
    """``c9k8j3f1??c`` for one example's ids."""
    return "".join(SYMBOLS[int(i)] for i in inputs)


def from_text(text: str) -> np.ndarray:
    """The ids of ``text``; raise on a symbol outside the 37."""
    bad = [c for c in text if c not in SYMBOLS]
    if bad:
        raise ValueError(f"text: {bad[0]!r} is not a symbol of the task (a-z, 0-9, ?)")
    return np.array([SYMBOLS.index(c) for c in text], dtype=np.int64)


def answer(text: str) -> int:
    """The target of a well-formed example, by a plain dictionary of its pairs.

    Raises:
        ValueError: ``text`` is not K letter-digit pairs with distinct letters, ``??`` and
            one of those letters.
    """
    body, sep, query = text.partition("??")
    pairs = [(body[i], body[i + 1 : i + 2]) for i in range(0, len(body), 2)]
    stored = dict(pairs)
    well_formed = (
        sep == "??"
        and len(body) % 2 == 0
        and all(key in LETTERS and value in DIGITS and value for key, value in pairs)
        and len(stored) == len(pairs) > 0
        and query in stored
    )
    if not well_formed:
        raise ValueError(f"text: {text!r} is not an associative-retrieval example")
    return int(stored[query])


@dataclass(frozen=True)
class RetrievalSplits:
    """Train, validation and test examples: ``(inputs, targets)`` each."""

    pairs: int
    seed: int
    train: tuple[np.ndarray, np.ndarray]
    validation: tuple[np.ndarray, np.ndarray]
    test: tuple[np.ndarray, np.ndarray]


def make_splits(
    seed: int, pairs: int = DEFAULT_PAIRS, sizes: tuple[int, int, int] = SPLIT_SIZES
) -> RetrievalSplits:
    """Three disjoint draws from one generator seeded by ``seed``."""
    rng = np.random.default_rng([seed, pairs])
    train, validation, test = (sample(rng, n, pairs) for n in sizes)
    return RetrievalSplits(pairs, seed, train, validation, test)


def splits_meta(seed: int, pairs: int, sizes: tuple[int, int, int]) -> dict[str, Any]:
    """What a file of the splits records beside the arrays: the format and the parameters."""
    return {
        "format": SPLITS_FORMAT,
        "task": "retrieval",
        "seed": seed,
        "pairs": pairs,
        "sizes": sizes,
    }


def splits_file_name(seed: int, pairs: int, sizes: tuple[int, int, int]) -> str:
    """``retrieval_seed{seed}_pairs{pairs}_{train}-{validation}-{test}.npz``."""
    return "retrieval_seed{}_pairs{}_{}.npz".format(seed, pairs, "-".join(map(str, sizes)))


def splits_to_arrays(splits: RetrievalSplits) -> dict[str, np.ndarray]:
    """Each split's inputs and targets, as ``train_inputs``, ``train_targets``, ..."""
    arrays = {}
    for split in _SPLITS:
        arrays[f"{split}_inputs"], arrays[f"{split}_targets"] = getattr(splits, split)
    return arrays


def _check_split(
    split: str, inputs: np.ndarray, targets: np.ndarray, pairs: int, size: int
) -> None:
    """ValueError naming ``split`` unless it holds ``size`` examples as :func:`sample` draws
    them: checked for all examples at once, the first bad one named."""
    for array, what in ((inputs, "inputs"), (targets, "targets")):
        if not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"{split}_{what}: expected integers, got dtype {array.dtype}")
    width = sequence_length(pairs)
    if inputs.shape != (size, width) or targets.shape != (size,):
        raise ValueError(
            f"{split}: inputs {inputs.shape} and targets {targets.shape}, "
            f"not ({size}, {width}) and ({size},)"
        )
    if inputs.min(initial=0) < 0 or inputs.max(initial=0) >= VOCAB_SIZE:
        raise ValueError(f"{split}: symbol ids outside 0..{VOCAB_SIZE - 1}")
    keys, values = inputs[:, 0 : 2 * pairs : 2], inputs[:, 1 : 2 * pairs : 2] - len(LETTERS)
    asked = keys == inputs[:, -1:]
    stored = values[np.arange(size), np.argmax(asked, axis=1)]
    problems = {
        "a key that is not a letter": (keys >= len(LETTERS)).any(axis=1),
        "a key twice": (np.diff(np.sort(keys, axis=1), axis=1) == 0).any(axis=1),
        "a value that is not a digit": ((values < 0) | (values >= CLASSES)).any(axis=1),
        "no ?? before the query": (inputs[:, 2 * pairs : 2 * pairs + 2] != QUERY).any(axis=1),
        "a query that is not a key": ~asked.any(axis=1),
        "a target that is not the digit stored with the query": targets != stored,
    }
    firsts = [(int(np.argmax(bad)), problem) for problem, bad in problems.items() if bad.any()]
    if firsts:
        i, problem = min(firsts)
        raise ValueError(
            f"{split}: example {i} ({to_text(inputs[i])} -> {targets[i]}) has {problem}"
        )


def splits_from_arrays(
    arrays: Mapping[str, np.ndarray], seed: int, pairs: int, sizes: tuple[int, int, int]
) -> RetrievalSplits:
    """The splits :func:`splits_to_arrays` gave ``arrays`` for, made by
    ``make_splits(seed, pairs, sizes)``; every example is checked to be one :func:`sample`
    draws (K letter-digit pairs with distinct letters, ``??``, one of the letters) and its
    target the digit stored with the query.

    Raises:
        KeyError: an array is missing.
        ValueError: arrays that are not integers, or not of the shapes ``pairs`` and
            ``sizes`` give, a symbol id outside the vocabulary, or an example that is not
            one or whose target is not its answer.
    """
    loaded = {split: (arrays[f"{split}_inputs"], arrays[f"{split}_targets"]) for split in _SPLITS}
    for (split, (inputs, targets)), size in zip(loaded.items(), sizes, strict=True):
        _check_split(split, inputs, targets, pairs, size)
    return RetrievalSplits(pairs, seed, loaded["train"], loaded["validation"], loaded["test"])
