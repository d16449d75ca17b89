"""Dyck-(k,m): the DFA against a plain stack recogniser, the allowed-next masks, the exact
counts against brute force and closed forms, the sampler's law, the splits and their file,
and argument checks."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chisquare

from memrnn.errors import UserError
from memrnn.languages import dyck
from memrnn.languages.dyck import (
    ACCEPT,
    REJECT,
    DyckDFA,
    allowed_next,
    count_strings,
    from_text,
    is_dyck,
    length_ranges,
    load_or_make_splits,
    make_splits,
    prefix_counts,
    sample_string,
    to_text,
)


def direct(tokens: Sequence[int], k: int, m: int) -> bool:
    """Definition 1 read literally: balanced, depth never above m, one end symbol, last."""
    stack: list[int] = []
    for t, token in enumerate(tokens):
        if token == 2 * k:
            return not stack and t == len(tokens) - 1
        if token < k:
            stack.append(token)
            if len(stack) > m:
                return False
        elif not stack or stack.pop() != token - k:
            return False
    return False  # no end symbol


def brackets(k: int, n: int) -> itertools.product[tuple[int, ...]]:
    return itertools.product(range(2 * k), repeat=n)


# --- the DFA --------------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "longest"), [(1, 7), (2, 5), (3, 4)])
@pytest.mark.parametrize("m", [1, 2, 3])
def test_dfa_agrees_with_the_direct_recogniser_on_every_short_string(
    k: int, m: int, longest: int
) -> None:
    dfa = DyckDFA(k, m)
    for n in range(longest + 1):
        for tokens in itertools.product(range(2 * k + 1), repeat=n):
            assert dfa.accepts(tokens) == direct(tokens, k, m), tokens


@st.composite
def near_dyck(draw: st.DrawFn) -> tuple[int, int, list[int]]:
    """Mostly well-formed strings that may go one deeper than m, with some random tokens."""
    k, m = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    stack: list[int] = []
    tokens: list[int] = []
    for _ in range(draw(st.integers(0, 30))):
        action = draw(st.sampled_from(["push", "pop", "pop", "noise"]))
        if action == "push" and len(stack) <= m:
            stack.append(draw(st.integers(0, k - 1)))
            tokens.append(stack[-1])
        elif action == "pop" and stack:
            tokens.append(stack.pop() + k)
        elif action == "noise":
            tokens.append(draw(st.integers(0, 2 * k)))
    tokens.extend(b + k for b in reversed(stack))
    if draw(st.booleans()):
        tokens.append(2 * k)
    return k, m, tokens


@given(near_dyck())
def test_dfa_agrees_with_the_direct_recogniser_on_random_strings(
    case: tuple[int, int, list[int]],
) -> None:
    k, m, tokens = case
    assert is_dyck(tokens, k, m) == direct(tokens, k, m)
    assert DyckDFA(k, m).accepts(np.array(tokens, dtype=np.int64)) == direct(tokens, k, m)


@pytest.mark.parametrize(("k", "m"), [(1, 1), (1, 4), (2, 2), (3, 2), (2, 3), (4, 1)])
def test_codes_number_every_state_once(k: int, m: int) -> None:
    dfa = DyckDFA(k, m)
    stacks = [s for d in range(m + 1) for s in itertools.product(range(k), repeat=d)]
    assert dfa.num_states == len(stacks) + 2 == sum(k**d for d in range(m + 1)) + 2
    codes = [dfa.encode(s) for s in stacks]
    assert codes == list(range(len(stacks)))  # by depth, then bottom-first lexicographic
    assert dfa.encode(REJECT) == dfa.reject_code == len(stacks)
    assert dfa.encode(ACCEPT) == dfa.accept_code == len(stacks) + 1
    assert [dfa.decode(c) for c in range(dfa.num_states)] == [*stacks, REJECT, ACCEPT]


@pytest.mark.parametrize("m", [1, 2, 3, 6])
def test_state_count_is_the_seeds_for_k_2(m: int) -> None:
    assert DyckDFA(2, m).num_states == 2 ** (m + 1) + 1


@pytest.mark.parametrize(("k", "m"), [(1, 3), (2, 2), (3, 2)])
def test_transitions_follow_appendix_b_and_search_reaches_every_state(k: int, m: int) -> None:
    dfa = DyckDFA(k, m)
    seen = {0}
    frontier = [0]
    while frontier:
        code = frontier.pop()
        state = dfa.decode(code)
        for token in range(2 * k + 1):
            after = dfa.step_code(code, token)
            assert dfa.decode(after) == dfa.step(state, token)
            if isinstance(state, tuple) and token < k:
                expected = (*state, token) if len(state) < m else REJECT
            elif isinstance(state, tuple) and token < 2 * k:
                expected = state[:-1] if state and state[-1] == token - k else REJECT
            elif isinstance(state, tuple):
                expected = ACCEPT if not state else REJECT
            else:
                expected = REJECT
            assert dfa.step(state, token) == expected, (state, token)
            if after not in seen:
                seen.add(after)
                frontier.append(after)
    assert seen == set(range(dfa.num_states))
    assert dfa.start == () and dfa.encode(dfa.start) == 0


# --- allowed next tokens --------------------------------------------------------------------


def test_allowed_masks_by_hand() -> None:
    # k = 2, m = 2: tokens ( [ ) ] #
    dfa = DyckDFA(2, 2)
    by_hand = {
        (): [1, 1, 0, 0, 1],
        (0,): [1, 1, 1, 0, 0],
        (1,): [1, 1, 0, 1, 0],
        (0, 1): [0, 0, 0, 1, 0],
        (1, 1): [0, 0, 0, 1, 0],
        (1, 0): [0, 0, 1, 0, 0],
        REJECT: [0, 0, 0, 0, 0],
        ACCEPT: [0, 0, 0, 0, 0],
    }
    for state, mask in by_hand.items():
        assert dfa.allowed(state).tolist() == [bool(x) for x in mask], state
    assert allowed_next(from_text("([", 2), 2, 2).tolist() == [False, False, False, True, False]
    assert allowed_next(from_text("()[", 2), 2, 2).tolist() == [True, True, False, True, False]
    assert allowed_next([], 2, 2).tolist() == [True, True, False, False, True]
    assert not allowed_next(from_text("()#", 2), 2, 2).any()  # complete: nothing may follow


@pytest.mark.parametrize(("k", "m"), [(1, 2), (2, 2), (3, 3)])
def test_allowed_is_exactly_the_tokens_that_avoid_reject(k: int, m: int) -> None:
    dfa = DyckDFA(k, m)
    for code in range(dfa.num_states):
        state = dfa.decode(code)
        expected = [dfa.step_code(code, t) != dfa.reject_code for t in range(2 * k + 1)]
        assert dfa.allowed(state).tolist() == expected


def closed_and_ended(tokens: Sequence[int], k: int) -> list[int] | None:
    """``tokens`` with their open brackets closed and the end symbol appended; None if some
    close bracket does not match or the end symbol came already."""
    stack: list[int] = []
    for x in tokens:
        if x < k:
            stack.append(x)
        elif x < 2 * k and stack and stack[-1] == x - k:
            stack.pop()
        else:
            return None
    return [*tokens, *(b + k for b in reversed(stack)), 2 * k]


@given(near_dyck())
def test_allowed_next_matches_the_prefix(case: tuple[int, int, list[int]]) -> None:
    k, m, tokens = case
    for t in range(len(tokens) + 1):
        prefix = tokens[:t]
        if DyckDFA(k, m).run(prefix) is REJECT:
            with pytest.raises(ValueError, match="prefix"):
                allowed_next(prefix, k, m)
            return
        mask = allowed_next(prefix, k, m)
        for token in range(2 * k + 1):  # allowed iff some string of the language goes on so
            if token == 2 * k:
                completable = direct([*prefix, token], k, m)
            else:
                completed = closed_and_ended([*prefix, token], k)
                completable = completed is not None and direct(completed, k, m)
            assert bool(mask[token]) == completable, (prefix, token)


# --- counting -------------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "longest"), [(1, 12), (2, 8), (3, 6)])
def test_counts_match_brute_force(k: int, longest: int) -> None:
    for n in range(longest + 1):
        whole: Counter[int] = Counter()  # balanced strings by their greatest depth
        prefixes: Counter[tuple[int, int]] = Counter()  # (greatest depth, final depth)
        for tokens in brackets(k, n):
            stack: list[int] = []
            deepest = 0
            for x in tokens:
                if x < k:
                    stack.append(x)
                    deepest = max(deepest, len(stack))
                elif stack and stack[-1] == x - k:
                    stack.pop()
                else:
                    break
            else:
                prefixes[deepest, len(stack)] += 1
                if not stack:
                    whole[deepest] += 1
        for m in (1, 2, 3):
            assert count_strings(k, m, n + 1) == sum(c for d, c in whole.items() if d <= m)
            assert prefix_counts(k, m, n) == [
                sum(c for (top, d), c in prefixes.items() if top <= m and d == final)
                for final in range(m + 1)
            ]


@pytest.mark.parametrize("k", [1, 2, 3, 5, 128])
def test_counts_match_closed_forms(k: int) -> None:
    assert count_strings(k, 3, 0) == 0
    for pairs in range(0, 31):
        n = 2 * pairs
        catalan = math.comb(n, pairs) // (pairs + 1)
        assert count_strings(k, max(pairs, 1), n + 1) == catalan * k**pairs  # depth never binds
        assert count_strings(k, 1, n + 1) == k**pairs
        assert count_strings(k, 2, n + 1) == (2 ** (pairs - 1) if pairs else 1) * k**pairs
        assert count_strings(k, 3, n + 2) == 0  # an odd number of brackets


def test_counts_are_exact_big_ints() -> None:
    value = count_strings(128, 5, 361)
    assert isinstance(value, int) and value > 2**1000
    assert value % 128**180 == 0  # every string of 180 pairs chooses 180 bracket types


# --- sampling -------------------------------------------------------------------------------


def test_length_ranges_are_table_2() -> None:
    assert length_ranges(3) == ((1, 84), (85, 168))
    assert length_ranges(5) == ((1, 180), (181, 360))
    for m in (3, 5):
        (_, hi), (test_lo, test_hi) = length_ranges(m)
        assert (test_lo, test_hi) == (hi + 1, 2 * hi)
    with pytest.raises(ValueError, match="m"):
        length_ranges(4)


@pytest.mark.parametrize(("k", "m", "lo", "hi"), [(3, 3, 1, 84), (3, 3, 85, 168), (8, 5, 181, 360)])
def test_samples_are_dyck_strings_in_range(k: int, m: int, lo: int, hi: int) -> None:
    rng = np.random.default_rng(0)
    for _ in range(100):
        tokens = sample_string(rng, k, m, lo, hi)
        assert tokens.dtype == dyck.TOKEN_DTYPE
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


# --- splits ---------------------------------------------------------------------------------


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


def test_splits_round_trip_through_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = load_or_make_splits(tmp_path, 2, 3, 1, 800, 200, 400)
    (path,) = tmp_path.glob("*.npz")
    assert path.name == "dyck_k2_m3_seed1_train800_dev200_test400_len1-84_85-168.npz"
    np.load(path, allow_pickle=False)  # no pickles inside

    def refuse(*args: object) -> None:
        raise AssertionError("made again instead of read")

    monkeypatch.setattr(dyck, "_make", refuse)
    read = load_or_make_splits(tmp_path, 2, 3, 1, 800, 200, 400)
    assert read.params == made.params
    for name in ("train", "dev", "test"):
        assert np.array_equal(getattr(read, name).tokens, getattr(made, name).tokens)
        assert np.array_equal(getattr(read, name).offsets, getattr(made, name).offsets)
        assert getattr(read, name).tokens.dtype == dyck.TOKEN_DTYPE
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_a_file_recording_other_parameters_is_an_error(tmp_path: Path) -> None:
    load_or_make_splits(tmp_path, 2, 3, 1, 800, 200, 400)
    (path,) = tmp_path.glob("*.npz")
    path.rename(path.with_name(path.name.replace("seed1", "seed2")))
    with pytest.raises(UserError, match="records"):
        load_or_make_splits(tmp_path, 2, 3, 2, 800, 200, 400)


def test_an_unreadable_file_is_an_error(tmp_path: Path) -> None:
    load_or_make_splits(tmp_path, 1, 2, 0, 100, 10, 10, train_lengths=(1, 9), test_lengths=(9, 21))
    (path,) = tmp_path.glob("*.npz")
    path.write_bytes(b"not a zip file")
    with pytest.raises(UserError, match="cannot read"):
        load_or_make_splits(
            tmp_path, 1, 2, 0, 100, 10, 10, train_lengths=(1, 9), test_lengths=(9, 21)
        )


# --- text form and argument checks ------------------------------------------------------------


def test_text_form_round_trips() -> None:
    assert from_text("([]){}#", 3) == [0, 1, 4, 3, 2, 5, 6]
    assert to_text([0, 1, 4, 3, 2, 5, 6], 3) == "([]){}#"
    assert to_text([0, 4, 8], 4) == "()#"
    assert to_text(np.array([0, 1, 3, 2, 4]), 2) == "([])#"


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: DyckDFA(0, 1), "k"),
        (lambda: DyckDFA(True, 1), "k"),
        (lambda: DyckDFA(2, 0), "m"),
        (lambda: DyckDFA(2, 1.5), "m"),
        (lambda: is_dyck([0, 5], 2, 2), r"tokens\[1\]"),
        (lambda: is_dyck([-1], 2, 2), r"tokens\[0\]"),
        (lambda: is_dyck("()#", 2, 2), "tokens"),
        (lambda: is_dyck([0.0, 2.0], 1, 2), "tokens"),
        (lambda: is_dyck([[0, 1]], 1, 2), "tokens"),
        (lambda: allowed_next([1], 1, 2), r"prefix\[0\]"),
        (lambda: allowed_next([0, 0, 0], 1, 2), "prefix"),
        (lambda: DyckDFA(2, 2).step((), 5), "token"),
        (lambda: DyckDFA(2, 2).step((2,), 0), "state"),
        (lambda: DyckDFA(2, 2).step((0, 0, 0), 0), "state"),
        (lambda: DyckDFA(2, 2).step([0], 0), "state"),
        (lambda: DyckDFA(2, 2).step_code(9, 0), "code"),
        (lambda: DyckDFA(2, 2).decode(-1), "code"),
        (lambda: count_strings(2, 2, -1), "length"),
        (lambda: prefix_counts(2, 2, -1), "n"),
        (lambda: to_text([0], 5), "k"),
        (lambda: from_text("(x", 1), r"text\[1\]"),
        (lambda: sample_string(0, 2, 2, 1, 9), "rng"),
        (lambda: sample_string(np.random.default_rng(), 2, 2, 9, 1), "min_length"),
        (lambda: sample_string(np.random.default_rng(), 2, 2, 2, 2), "no Dyck"),
        (lambda: sample_string(np.random.default_rng(), 2, 2, 1, 0), "max_length"),
        (lambda: make_splits(2, 4, 0, 10), "m"),
        (lambda: make_splits(2, 3, -1, 10), "seed"),
        (lambda: make_splits(2, 3, 0, -10), "train_tokens"),
        (lambda: make_splits(2, 3, 0, 10, dev_tokens=None), "dev_tokens"),
        (lambda: make_splits(2, 3, 0, 10, train_lengths=(9, 3)), r"train_lengths\[0\]"),
        (lambda: make_splits(2, 3, 0, 10, test_lengths=(4, 4)), r"test_lengths"),
        (lambda: make_splits(2, 3, 0, 10, test_lengths=5), "test_lengths"),
    ],
)
def test_bad_arguments_name_themselves(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
