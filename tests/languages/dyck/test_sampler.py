"""The sampler's law: Appendix H's distribution conditioned on the length."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from scipy.stats import chisquare

from memrnn.languages.dyck import TOKEN_DTYPE, make_splits, sample_string
from tests.languages.dyck.helpers import brackets, direct


@pytest.mark.parametrize(("k", "m", "lo", "hi"), [(3, 3, 1, 84), (3, 3, 85, 168), (8, 5, 181, 360)])
def test_samples_are_dyck_strings_in_range(k: int, m: int, lo: int, hi: int) -> None:
    rng = np.random.default_rng(0)
    for _ in range(100):
        tokens = sample_string(rng, k, m, lo, hi)
        assert tokens.dtype == TOKEN_DTYPE
        assert lo <= tokens.size <= hi
        assert direct(tokens.tolist(), k, m)


def test_sampling_is_deterministic_given_the_seed() -> None:
    def draw(seed: int) -> list[list[int]]:
        rng = np.random.default_rng(seed)
        return [sample_string(rng, 4, 3, 1, 84).tolist() for _ in range(50)]

    assert draw(7) == draw(7)
    assert draw(7) != draw(8)


def appendix_h_probability(tokens: Sequence[int], k: int, m: int) -> float:
    """P(tokens) under Equations H.2-H.3 without a length condition, step by step."""
    p = 1.0
    depth = 0
    for token in tokens:
        actions = 1 if depth == m else 2  # {push, end}, {push, pop} or {pop}
        p /= actions
        if token < k:
            p /= k
            depth += 1
        elif token < 2 * k:
            depth -= 1
    return p


def appendix_h_strings(k: int, m: int, lo: int, hi: int) -> dict[tuple[int, ...], float]:
    """Every Dyck-(k,m) string with length in range and its conditional probability."""
    strings = [
        (*tokens, 2 * k)
        for n in range(lo - 1, hi)
        for tokens in brackets(k, n)
        if direct((*tokens, 2 * k), k, m)
    ]
    weights = {s: appendix_h_probability(s, k, m) for s in strings}
    total = sum(weights.values())
    return {s: w / total for s, w in weights.items()}


@pytest.mark.parametrize("path", ["sample_string", "make_splits"])
@pytest.mark.parametrize(("k", "m", "lo", "hi"), [(2, 2, 3, 7), (1, 3, 5, 11)])
def test_samples_follow_appendix_h_conditioned_on_the_length(
    path: str, k: int, m: int, lo: int, hi: int
) -> None:
    law = appendix_h_strings(k, m, lo, hi)
    if path == "sample_string":
        rng = np.random.default_rng(3)
        drawn = [tuple(sample_string(rng, k, m, lo, hi).tolist()) for _ in range(4000)]
    else:
        splits = make_splits(k, m, 3, 6000 * lo, 0, 0, train_lengths=(lo, hi), test_lengths=(1, 1))
        drawn = [tuple(s.tolist()) for s in splits.train]
    counts = Counter(drawn)
    assert set(counts) <= set(law)
    strings = sorted(law)
    observed = np.array([counts[s] for s in strings])
    expected = np.array([law[s] * len(drawn) for s in strings])
    assert chisquare(observed, expected).pvalue > 1e-3


def test_steps_follow_equation_h2() -> None:
    # A range no walk leaves (ending needs ~100 heads in a row) leaves Equation H.2 as it is.
    k, m = 3, 3
    splits = make_splits(k, m, 11, 40_000, 0, 0, train_lengths=(1, 401), test_lengths=(1, 1))
    pushes = Counter[int]()
    visits = Counter[int]()
    opened = Counter[int]()
    for tokens in splits.train:
        depth = 0
        for token in tokens.tolist():
            visits[depth] += 1
            if token < k:
                pushes[depth] += 1
                opened[token] += 1
                depth += 1
            elif token < 2 * k:
                depth -= 1
    assert pushes[m] == 0
    for depth in range(m):  # push with probability 1/2 (the rest is end at 0, pop above)
        n = visits[depth]
        assert abs(pushes[depth] / n - 0.5) < 4.5 * math.sqrt(0.25 / n), depth
    assert chisquare([opened[i] for i in range(k)]).pvalue > 1e-3


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: sample_string(0, 2, 2, 1, 9), "rng"),
        (lambda: sample_string(np.random.default_rng(), 2, 2, 9, 1), "min_length"),
        (lambda: sample_string(np.random.default_rng(), 2, 2, 2, 2), "no Dyck"),
        (lambda: sample_string(np.random.default_rng(), 2, 2, 1, 0), "max_length"),
        # the end symbol 2k must fit TOKEN_DTYPE: an OverflowError before
        (lambda: sample_string(np.random.default_rng(), 2**30, 2, 1, 9), r"k: .* 1\.\.1073741823"),
        (lambda: sample_string(np.random.default_rng(), 2**40, 2, 1, 9), "got 1099511627776"),
        # the table of exact integers would fill memory: refused before it is made
        (lambda: sample_string(np.random.default_rng(), 2, 3, 1, 10**6), "m, max_length: weigh"),
        (
            lambda: sample_string(np.random.default_rng(), 2, 10**9, 1, 9),
            "over the limit of 1,024 MiB",
        ),
    ],
)
def test_bad_arguments_name_themselves(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
