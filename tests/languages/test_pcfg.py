"""The samplers: words in the language and in the length range, determinism, coverage of
the lengths and of the short words, the same draws as the derivation written literally,
and argument checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from memrnn.errors import UserError
from memrnn.languages import (
    GRAMMARS,
    LANGUAGES,
    ProbabilisticGrammar,
    automaton,
    prefix_labels,
    recognise,
    sample_words,
)


@pytest.mark.parametrize("name", LANGUAGES)
@pytest.mark.parametrize(("low", "high"), [(1, 50), (50, 100)])
def test_words_are_in_the_language_and_the_range(name: str, low: int, high: int) -> None:
    words = sample_words(name, np.random.default_rng(0), 100, low, high)
    assert len(words) == 100
    a = automaton(name)
    for word in words:
        assert low <= len(word) <= high, word
        assert a.accepts(word), word
        assert recognise(name, word), word


@pytest.mark.parametrize("name", LANGUAGES)
def test_lengths_cover_the_range(name: str) -> None:
    train = [len(w) for w in sample_words(name, np.random.default_rng(1), 200, 1, 50)]
    test = [len(w) for w in sample_words(name, np.random.default_rng(2), 200, 50, 100)]
    assert min(train) <= 5 and max(train) >= 40
    assert np.median(train) >= 6  # not mostly the shortest words
    assert min(test) <= 55 and max(test) >= 80


@pytest.mark.parametrize("name", LANGUAGES)
def test_deterministic_given_the_seed(name: str) -> None:
    first = sample_words(name, np.random.default_rng(123), 30, 1, 50)
    again = sample_words(name, np.random.default_rng(123), 30, 1, 50)
    other = sample_words(name, np.random.default_rng(124), 30, 1, 50)
    assert first == again
    assert first != other
    rng = np.random.default_rng(123)
    assert sample_words(name, rng, 30, 1, 50) == first
    assert sample_words(name, rng, 30, 1, 50) != first  # the generator was advanced


@pytest.mark.parametrize(
    ("name", "longest"),
    [
        ("dyck1", 8),
        ("dyck2", 4),
        ("dyck3", 4),
        ("anbn", 10),
        ("palindrome", 7),
        ("json", 5),
        ("latch", 5),
    ],
)
def test_every_short_word_is_sampled(name: str, longest: int) -> None:
    # The grammars generate the whole language, not a part of it.
    alphabet = sorted(automaton(name).terminals)
    language = {
        "".join(s)
        for n in range(1, longest + 1)
        for s in itertools.product(alphabet, repeat=n)
        if recognise(name, "".join(s))
    }
    sampled = set(sample_words(name, np.random.default_rng(5), 3000, 1, longest))
    assert sampled == language


def test_grammar_terminals_are_the_automaton_terminals() -> None:
    assert set(GRAMMARS) == set(LANGUAGES)
    for name, grammar in GRAMMARS.items():
        assert grammar.terminals == automaton(name).terminals, name


def test_exact_length() -> None:
    assert sample_words("anbn", np.random.default_rng(0), 5, 6, 6) == ["aaabbb"] * 5
    assert set(sample_words("latch", np.random.default_rng(0), 50, 1, 1)) == {"1"}
    assert sample_words("dyck1", np.random.default_rng(0), 0, 2, 4) == []


def test_sampled_words_give_positive_and_negative_labels() -> None:
    words = sample_words("dyck2", np.random.default_rng(0), 20, 10, 50)
    labels = [prefix_labels(automaton("dyck2"), w) for w in words]
    assert all(y[-1] == 1 for y in labels)
    assert all(y[0] == 0 for y in labels)


def test_empty_range_is_refused() -> None:
    with pytest.raises(ValueError, match="anbn has no words of lengths 3 to 3"):
        sample_words("anbn", np.random.default_rng(0), 1, 3, 3)
    with pytest.raises(ValueError, match="palindrome has no words of lengths 0 to 0"):
        sample_words("palindrome", np.random.default_rng(0), 1, 0, 0)


def test_gives_up_after_max_attempts() -> None:
    with pytest.raises(RuntimeError, match="10 draws gave only 0 of 2 words"):
        sample_words("anbn", np.random.default_rng(0), 2, 400, 400, max_attempts=10)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"name": "dyck4"}, UserError, "dyck1, dyck2, dyck3, anbn, palindrome, json, latch"),
        ({"rng": np.random.RandomState(0)}, ValueError, "rng"),
        ({"rng": 0}, ValueError, "rng"),
        ({"n": -1}, ValueError, "n: expected"),
        ({"n": True}, ValueError, "n: expected"),
        ({"n": 2.0}, ValueError, "n: expected"),
        ({"min_length": -1}, ValueError, "min_length"),
        ({"min_length": 9, "max_length": 8}, ValueError, "greater than"),
        ({"max_attempts": 0}, ValueError, "max_attempts"),
    ],
)
def test_arguments_are_checked(kwargs: dict[str, object], error: type, message: str) -> None:
    args: dict[str, object] = {
        "name": "dyck1",
        "rng": np.random.default_rng(0),
        "n": 2,
        "min_length": 2,
        "max_length": 8,
    }
    args.update(kwargs)
    with pytest.raises(error, match=message):
        sample_words(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("start", "productions", "message"),
    [
        ("T", {"S": (("a", 1.0),)}, "start"),
        ("S", {"S": (("a", 0.5), ("b", 0.4))}, "summing to 1"),
        ("S", {"S": (("a", 1.2), ("b", -0.2))}, "positive"),
        ("S", {"S": ()}, "no right-hand sides"),
        ("S", {"S": (("aS", 1.0),)}, r"\['S'\] derive no finite word"),
        ("S", {"S": (("T", 1.0),), "TT": (("a", 1.0),)}, "not one character"),
    ],
)
def test_grammar_is_validated(
    start: str, productions: dict[str, tuple[tuple[str, float], ...]], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ProbabilisticGrammar(start, productions)


def test_derive_abandons_long_draws() -> None:
    # S -> aS (0.99) | a: most draws are longer than 5 and come back as None, not a word.
    grammar = ProbabilisticGrammar("S", {"S": (("aS", 0.99), ("a", 0.01))})
    rng = np.random.default_rng(0)
    draws = [grammar.derive(rng, 5) for _ in range(100)]
    assert draws.count(None) > 90
    assert all(d is None or (1 <= len(d) <= 5 and set(d) == {"a"}) for d in draws)


def _literal_derive(
    grammar: ProbabilisticGrammar, rng: np.random.Generator, max_length: int
) -> str | None:
    """``ProbabilisticGrammar.derive`` as its docstring reads: one uniform draw per
    expansion picks the first right-hand side whose cumulative probability exceeds it, and
    the bound adds each pending symbol's shortest word afresh."""
    heads = grammar.productions
    shortest = {head: grammar._min_length[head] for head in heads}
    word: list[str] = []
    pending = [grammar.start]
    expansions = 0
    while pending:
        symbol = pending.pop()
        if symbol not in heads:
            word.append(symbol)
            continue
        expansions += 1
        bound = len(word) + sum(shortest.get(s, 1) for s in pending) + shortest[symbol]
        if bound > max_length or expansions > 4 * max_length + 64:
            return None
        cumulative = np.cumsum([p for _, p in heads[symbol]])
        i = int(np.searchsorted(cumulative, rng.random(), side="right"))
        rhs = heads[symbol][min(i, len(cumulative) - 1)][0]
        pending.extend(reversed(rhs))
    return "".join(word) if len(word) <= max_length else None


@pytest.mark.parametrize("name", LANGUAGES)
def test_derive_draws_as_written_literally(name: str) -> None:
    grammar = GRAMMARS[name]
    for seed in range(5):
        fast, literal = np.random.default_rng(seed), np.random.default_rng(seed)
        for max_length in (1, 4, 10, 30, 60) * 40:
            assert grammar.derive(fast, max_length) == _literal_derive(grammar, literal, max_length)
        assert fast.random() == literal.random()  # the same draws were taken


def _literal_sample(
    name: str, rng: np.random.Generator, n: int, low: int, high: int, *, max_attempts: int
) -> list[str]:
    """``sample_words`` as its docstring reads: literal derivations, each outside the
    range rejected whole, at most ``attempts`` of them."""
    words: list[str] = []
    for _ in range(max_attempts):
        if len(words) == n:
            return words
        word = _literal_derive(GRAMMARS[name], rng, high)
        if word is not None and len(word) >= low:
            words.append(word)
    if len(words) < n:
        raise RuntimeError("too few words")
    return words


@pytest.mark.parametrize("name", LANGUAGES)
def test_sample_words_draws_as_written_literally(name: str) -> None:
    # The sampler takes its uniform draws ahead in blocks; the words and the generator's
    # state after them are those of one rng.random() call per expansion, even when it
    # gives up.
    for seed in range(3):
        for low, high, attempts in (
            (1, 10, 82_000),
            (1, 50, 82_000),
            (50, 100, 82_000),
            (40, 60, 9),
        ):
            fast, literal = np.random.default_rng([seed, 5]), np.random.default_rng([seed, 5])
            results = []
            for sample, rng in ((sample_words, fast), (_literal_sample, literal)):
                try:
                    results.append(sample(name, rng, 40, low, high, max_attempts=attempts))
                except (RuntimeError, ValueError) as error:  # no such length, or gave up
                    results.append(type(error).__name__)
            assert results[0] == results[1]
            assert fast.random() == literal.random()
            assert fast.integers(0, 9, size=3).tolist() == literal.integers(0, 9, size=3).tolist()
