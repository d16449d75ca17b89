"""The direct recognisers, and the automata checked against them: every short word, random
strings, and strings one edit away from sampled words."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memrnn.errors import UserError
from memrnn.languages import LANGUAGES, automaton, recognise, sample_words
from memrnn.languages.recognisers import (
    in_anbn,
    in_dyck,
    in_json,
    in_latch,
    in_palindrome,
)

ALPHABETS = {
    "dyck1": "()",
    "dyck2": "()[]",
    "dyck3": "()[]{}",
    "anbn": "ab",
    "palindrome": "ab$",
    "json": "{}[],:nsk",
    "latch": "01",
}


def test_alphabets_are_the_automata_terminals() -> None:
    assert set(ALPHABETS) == set(LANGUAGES)
    for name, alphabet in ALPHABETS.items():
        assert automaton(name).terminals == set(alphabet)


def test_dyck_by_hand() -> None:
    assert in_dyck("(())()", 1)
    assert not in_dyck("", 1)
    assert not in_dyck(")(", 1)
    assert not in_dyck("(()", 1)
    assert not in_dyck("[]", 1)
    assert in_dyck("([]())", 2)
    assert not in_dyck("([)]", 2)
    assert not in_dyck("{}", 2)
    assert in_dyck("{[()]}[]", 3)
    assert not in_dyck("{[(])}", 3)
    assert not in_dyck("(((", 3)


def test_anbn_by_hand() -> None:
    assert in_anbn("ab") and in_anbn("aaabbb")
    for word in ["", "a", "b", "ba", "aab", "abb", "abab", "aabbb", "ac"]:
        assert not in_anbn(word), word


def test_palindrome_by_hand() -> None:
    for word in ["$", "a$a", "ab$ba", "bba$abb"]:
        assert in_palindrome(word), word
    for word in ["", "a", "aa", "a$b", "ab$ab", "a$$a", "a$a$a", "c$c", "ab$b"]:
        assert not in_palindrome(word), word


def test_json_by_hand() -> None:
    for word in ["n", "s", "{}", "[]", "[n,s]", "{k:n}", "{k:[n,n],k:s}", "[{k:{}},[[]]]"]:
        assert in_json(word), word
    for word in ["", "k", "nn", "{k:n,}", "[n,]", "{n:n}", "{k:n]", "[k:n]", "{k}", "[n]n"]:
        assert not in_json(word), word


def test_latch_by_hand() -> None:
    for word in ["1", "10", "01", "111", "0001000"]:
        assert in_latch(word), word
    for word in ["", "0", "11", "0110", "1a"]:
        assert not in_latch(word), word


def test_recognise_dispatches_and_refuses() -> None:
    assert recognise("dyck3", "{}") and not recognise("dyck2", "{}")
    assert recognise("json", "[n]") and recognise("latch", "1")
    with pytest.raises(UserError, match="dyck1, dyck2, dyck3, anbn, palindrome, json, latch"):
        recognise("anbncn", "abc")
    with pytest.raises(ValueError, match=r"k: expected an int in 1\.\.3"):
        in_dyck("()", 4)
    with pytest.raises(TypeError, match="string"):
        in_anbn(["a", "b"])  # type: ignore[arg-type]


def test_json_too_deep_is_an_error_not_an_answer() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        in_json("[" * 5000 + "]" * 5000)
    assert automaton("json").accepts("[" * 5000 + "]" * 5000)


# Every word up to these lengths (about 73,000 words in all).
EXHAUSTIVE = {
    "dyck1": 12,
    "dyck2": 7,
    "dyck3": 5,
    "anbn": 12,
    "palindrome": 8,
    "json": 4,
    "latch": 12,
}


@pytest.mark.parametrize("name", LANGUAGES)
def test_automaton_equals_recogniser_on_every_short_word(name: str) -> None:
    a = automaton(name)
    accepted = 0
    for length in range(EXHAUSTIVE[name] + 1):
        for symbols in itertools.product(ALPHABETS[name], repeat=length):
            word = "".join(symbols)
            verdict = a.accepts(word)
            assert verdict == recognise(name, word), word
            accepted += verdict
    assert accepted > 0


@pytest.mark.parametrize("name", LANGUAGES)
@given(data=st.data())
def test_automaton_equals_recogniser_on_random_strings(name: str, data: st.DataObject) -> None:
    word = data.draw(st.text(alphabet=ALPHABETS[name], max_size=40))
    assert automaton(name).accepts(word) == recognise(name, word)


def _one_edit_away(word: str, alphabet: str) -> set[str]:
    out = set()
    for i in range(len(word) + 1):
        for symbol in alphabet:
            out.add(word[:i] + symbol + word[i:])  # insert
            if i < len(word):
                out.add(word[:i] + symbol + word[i + 1 :])  # change
        if i < len(word):
            out.add(word[:i] + word[i + 1 :])  # delete
    return out - {word}


@pytest.mark.parametrize("name", LANGUAGES)
def test_automaton_equals_recogniser_near_the_language(name: str) -> None:
    a = automaton(name)
    words = sample_words(name, np.random.default_rng(7), 20, 1, 30)
    near = set().union(*(_one_edit_away(w, ALPHABETS[name]) for w in words))
    verdicts = [a.accepts(w) for w in sorted(near)]
    assert verdicts == [recognise(name, w) for w in sorted(near)]
    # One edit never keeps a Dyck, a^n b^n or palindrome word in its language; it can keep
    # a json word (n -> s) or a latch word (insert a 0) in.
    assert any(verdicts) == (name in ("json", "latch"))
    assert not all(verdicts)


@pytest.mark.parametrize("name", LANGUAGES)
@given(data=st.data())
def test_automaton_equals_recogniser_one_change_from_a_word(name: str, data: st.DataObject) -> None:
    seed = data.draw(st.integers(0, 2**32 - 1))
    (word,) = sample_words(name, np.random.default_rng(seed), 1, 1, 60)
    i = data.draw(st.integers(0, len(word) - 1))
    symbol = data.draw(st.sampled_from(ALPHABETS[name]))
    changed = word[:i] + symbol + word[i + 1 :]
    assert automaton(name).accepts(changed) == recognise(name, changed)
