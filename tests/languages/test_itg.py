"""ITGs and their sampler: the data model and its checks, inversion, the order of the
vocabularies, determinism, the same draws as the derivation written literally, rejection,
the runaway guard and argument checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memrnn.languages.grammars import GENDERLESS_TO_GENDERED, SVO_TO_SOV
from memrnn.languages.itg import ITG, ITGRule, Ref, sample_pair, sample_pairs

# --- the data model -------------------------------------------------------------------


def test_rule_parse() -> None:
    rule = ITGRule.parse("S1 rpi S2 VT3 | S1 rpo S2 VT3", 0.2)
    assert rule.source == (Ref("S", 1), "rpi", Ref("S", 2), Ref("VT", 3))
    assert rule.target == (Ref("S", 1), "rpo", Ref("S", 2), Ref("VT", 3))
    assert rule.probability == 0.2
    assert str(rule) == "S1 rpi S2 VT3 | S1 rpo S2 VT3"
    assert ITGRule.parse("S1 VT2 O3 | S1 O3 VT2", 1.0).target[1] == Ref("O", 3)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("S1 S1 | S1 S1", "index is used twice"),
        ("S1 S2 | S1", "same constituents"),
        ("S1 O2 | S1 S2", "same constituents"),
        ("S1 S2", "expected 'source | target'"),
        ("S1 | S1 | S1", "expected 'source | target'"),
    ],
)
def test_bad_rules(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ITGRule.parse(text, 0.5)
    with pytest.raises(ValueError, match="probability"):
        ITGRule.parse("x | y", 0.0)


def _toy(**changes: object) -> ITG:
    """A -> X1 Y2 | Y2 X1 (inverted), X -> a|A, Y -> b|B or c|C."""
    parts: dict[str, object] = {
        "start": "A",
        "rules": {"A": (ITGRule.parse("X1 Y2 | Y2 X1", 1.0),)},
        "classes": {"X": (("a", "A"),), "Y": (("b", "B"), ("c", "C"))},
    }
    parts.update(changes)
    return ITG(**parts)  # type: ignore[arg-type]


def test_inversion_and_vocabularies() -> None:
    grammar = _toy()
    rng = np.random.default_rng(0)
    seen = {tuple(map(tuple, sample_pair(grammar, rng, 1, 5))) for _ in range(50)}
    assert seen == {(("a", "b"), ("B", "A")), (("a", "c"), ("C", "A"))}
    assert grammar.min_length == 2
    assert grammar.source_words == ("a", "b", "c")
    assert grammar.target_words == ("A", "B", "C")


def test_words_in_order_of_first_appearance_without_repeats() -> None:
    assert GENDERLESS_TO_GENDERED.source_words[:4] == ("or", "and", "the", "a")
    assert GENDERLESS_TO_GENDERED.target_words[:7] == (
        "oder",
        "und",
        "der",
        "die",
        "das",
        "ein",
        "eine",
    )
    assert SVO_TO_SOV.source_words[:3] == ("rpi", "si0", "si1")


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"start": "Z"}, "start"),
        ({"rules": {"A": (ITGRule.parse("X1 | X1", 0.5),)}}, "sum to 0.5"),
        ({"rules": {"A": ()}}, "no rules"),
        ({"rules": {"A": (ITGRule.parse("X1 Q2 | Q2 X1", 1.0),)}}, "unknown symbols"),
        ({"classes": {"X": (), "Y": (("b", "B"),)}}, "word pairs"),
        ({"classes": {"X": (("a", ""),), "Y": (("b", "B"),)}}, "word pairs"),
        ({"classes": {"A": (("a", "A"),), "X": (("a", "A"),), "Y": (("b", "B"),)}}, "also"),
        ({"rules": {"A": (ITGRule.parse("A1 X2 | A1 X2", 1.0),)}}, "no finite"),
    ],
)
def test_bad_grammars(changes: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        _toy(**changes)


# --- sampling: determinism, rejection, the runaway guard, arguments -------------------


def test_deterministic_given_the_seed() -> None:
    def draw(seed: int) -> list[tuple[list[str], list[str]]]:
        rng = np.random.default_rng(seed)
        return [sample_pair(SVO_TO_SOV, rng, 8, 20) for _ in range(10)]

    assert draw(3) == draw(3)
    assert draw(3) != draw(4)


def test_rejection_fills_a_narrow_range() -> None:
    rng = np.random.default_rng(0)
    lengths = {len(sample_pair(SVO_TO_SOV, rng, 9, 9)[0]) for _ in range(20)}
    assert lengths == {9}
    # The toy grammar's sources all have 2 words.
    with pytest.raises(ValueError, match="max_tries: 200 draws gave no source of 3 to 4"):
        sample_pair(_toy(), rng, 3, 4, max_tries=200)


def test_runaway_guard() -> None:
    # Supercritical: each A has 1.998 children on average, nearly every derivation is
    # infinite, yet every draw stops once its source must exceed max_length.
    rules = {"A": (ITGRule.parse("A1 A2 | A2 A1", 0.999), ITGRule.parse("X1 | X1", 0.001))}
    grammar = ITG("A", rules, {"X": (("x", "y"),)})
    rng = np.random.default_rng(0)
    draws = [grammar.derive(rng, 50) for _ in range(200)]
    assert sum(d is None for d in draws) >= 190
    assert all(d is None or len(d[0]) <= 50 for d in draws)
    with pytest.raises(ValueError, match="max_tries: 300 draws gave no source of 3 to 50"):
        sample_pair(grammar, rng, 3, 50, max_tries=300)
    # A unit-rule chain adds no word; the expansion cap stops it.
    rules = {"A": (ITGRule.parse("A1 | A1", 0.9999), ITGRule.parse("X1 | X1", 0.0001))}
    chain = ITG("A", rules, {"X": (("x", "y"),)})
    assert sum(chain.derive(rng, 1) is None for _ in range(100)) >= 95


def test_derive_bounds_the_source() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        pair = GENDERLESS_TO_GENDERED.derive(rng, 20)
        assert pair is None or len(pair[0]) <= 20


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("grammar", 1, 5), "grammar"),
        ((SVO_TO_SOV, 0, 5), "min_length"),
        ((SVO_TO_SOV, 3, 0), "max_length"),
        ((SVO_TO_SOV, 3.0, 5), "min_length"),
        ((SVO_TO_SOV, 6, 5), "min_length 6 is greater than max_length 5"),
        ((GENDERLESS_TO_GENDERED, 1, 4), "max_length: 4 is below the grammar's shortest"),
    ],
)
def test_bad_arguments(args: tuple[object, object, object], match: str) -> None:
    grammar, low, high = args
    with pytest.raises(ValueError, match=match):
        sample_pair(grammar, np.random.default_rng(0), low, high)  # type: ignore[arg-type]


def test_bad_rng_and_tries() -> None:
    with pytest.raises(ValueError, match="rng"):
        sample_pair(SVO_TO_SOV, 0, 1, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_tries"):
        sample_pair(SVO_TO_SOV, np.random.default_rng(0), 1, 5, max_tries=0)


def _literal_derive(
    grammar: ITG, rng: np.random.Generator, max_length: int
) -> tuple[list[str], list[str]] | None:
    """``ITG.derive`` as its docstring reads: one uniform draw per class word and per
    expansion, the rule picked from the cumulative probabilities, and the bound (source
    words chosen plus the fewest the pending constituents derive) summed afresh."""
    fewest = grammar._min_length
    root: dict[str, Any] = {"symbol": grammar.start, "children": {}}
    pending, chosen, expansions = [root], 0, 0
    while pending:
        node = pending.pop()
        pairs = grammar.classes.get(node["symbol"])
        if pairs is not None:
            node["pair"] = pairs[min(int(rng.random() * len(pairs)), len(pairs) - 1)]
            chosen += 1
            continue
        expansions += 1
        bound = chosen + fewest[node["symbol"]] + sum(fewest[n["symbol"]] for n in pending)
        if bound > max_length or expansions > 4 * max_length + 64:
            return None
        rules = grammar.rules[node["symbol"]]
        cumulative = np.cumsum([r.probability for r in rules])
        i = int(np.searchsorted(cumulative, rng.random(), side="right"))
        node["rule"] = rule = rules[min(i, len(rules) - 1)]
        chosen += sum(isinstance(x, str) for x in rule.source)
        for x in reversed(rule.source):
            if isinstance(x, Ref):
                node["children"][x.index] = child = {"symbol": x.name, "children": {}}
                pending.append(child)
    if chosen > max_length:
        return None

    def spell(node: dict[str, Any], side: int) -> list[str]:
        if "pair" in node:
            return [node["pair"][side]]
        items = (node["rule"].source, node["rule"].target)[side]
        return [
            w
            for x in items
            for w in ([x] if isinstance(x, str) else spell(node["children"][x.index], side))
        ]

    return spell(root, 0), spell(root, 1)


@pytest.mark.parametrize(
    "grammar", [SVO_TO_SOV, GENDERLESS_TO_GENDERED], ids=["svo", "conjugation"]
)
def test_derive_draws_as_written_literally(grammar: ITG) -> None:
    for seed in range(4):
        fast, literal = np.random.default_rng(seed), np.random.default_rng(seed)
        for max_length in (1, 5, 12, 40) * 50:
            assert grammar.derive(fast, max_length) == _literal_derive(grammar, literal, max_length)
        assert fast.random() == literal.random()  # the same draws were taken


@pytest.mark.parametrize(
    "grammar", [SVO_TO_SOV, GENDERLESS_TO_GENDERED], ids=["svo", "conjugation"]
)
def test_sample_pairs_draws_as_written_literally(grammar: ITG) -> None:
    # The sampler takes its uniform draws ahead in blocks and spells out only the pairs it
    # keeps; the pairs and the generator's state after them are those of literal
    # derivations, each outside the range rejected whole, even when it gives up.
    def literal(rng: np.random.Generator, n: int, low: int, high: int, tries: int) -> object:
        pairs = []
        for _ in range(n):
            for _ in range(tries):
                pair = _literal_derive(grammar, rng, high)
                if pair is not None and len(pair[0]) >= low:
                    pairs.append(pair)
                    break
            else:
                return "gave up"
        return pairs

    for seed in range(3):
        for low, high, tries in ((1, 20, 100_000), (20, 40, 100_000), (38, 40, 3)):
            fast, slow = np.random.default_rng([seed, 2]), np.random.default_rng([seed, 2])
            try:
                got: object = sample_pairs(grammar, fast, 12, low, high, tries)
            except ValueError:
                got = "gave up"
            assert got == literal(slow, 12, low, high, tries)
            assert fast.random() == slow.random()
            assert fast.integers(0, 9, size=3).tolist() == slow.integers(0, 9, size=3).tolist()


def test_sample_pairs_checks_its_count() -> None:
    assert sample_pairs(SVO_TO_SOV, np.random.default_rng(0), 0, 1, 5) == []
    with pytest.raises(ValueError, match="n"):
        sample_pairs(SVO_TO_SOV, np.random.default_rng(0), -1, 1, 5)
