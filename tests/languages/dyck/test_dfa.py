"""The DFA of Appendix B against a plain stack recogniser, and the allowed-next masks."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given

from memrnn.languages.dyck import ACCEPT, REJECT, DyckDFA, allowed_next, from_text, is_dyck
from tests.languages.dyck.helpers import direct, near_dyck


@pytest.mark.parametrize(("k", "longest"), [(1, 7), (2, 5), (3, 4)])
@pytest.mark.parametrize("m", [1, 2, 3])
def test_dfa_agrees_with_the_direct_recogniser_on_every_short_string(
    k: int, m: int, longest: int
) -> None:
    dfa = DyckDFA(k, m)
    for n in range(longest + 1):
        for tokens in itertools.product(range(2 * k + 1), repeat=n):
            assert dfa.accepts(tokens) == direct(tokens, k, m), tokens


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
def test_state_count_is_the_papers_for_k_2(m: int) -> None:
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
    ],
)
def test_bad_arguments_name_themselves(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
