"""The two grammars of Grefenstette et al. (2015), Table 1: checked against parsers written
without the sampler, the rules used, vocabulary sizes, the table's probabilities, the
critical variants and the builders' arguments."""

from __future__ import annotations

import re

import numpy as np
import pytest

from memrnn.languages.grammars import (
    GENDERLESS_TO_GENDERED,
    SVO_TO_SOV,
    genderless_to_gendered,
    svo_to_sov,
)
from memrnn.languages.itg import ITG, sample_pair

# --- parsers of the two grammars, independent of the sampler --------------------------
#
# SVO: with x = si, ( = rpi, ) = vi, a subject S -> S S | S ( S ) | x is exactly
# x {x | ( S )}*, so a greedy descent parses it; the main verb is the vi that follows the
# subject at the top level; an object O -> O O | S ( S ) | oi is a run of oi and of subject
# strings that end in a relative clause.


def _kind(word: str) -> str:
    return word if word == "rpi" else word[:2]


def _subject(words: list[str], i: int) -> int:
    """The end of the subject starting at ``i``: x {x | ( S )}*."""
    assert _kind(words[i]) == "si", (words, i)
    i += 1
    while i < len(words):
        if _kind(words[i]) == "si":
            i += 1
        elif words[i] == "rpi":
            i = _subject(words, i + 1)
            assert i < len(words) and _kind(words[i]) == "vi", (words, i)
            i += 1
        else:
            break
    return i


def _check_object(words: list[str], i: int) -> None:
    """``words[i:]`` is an object."""
    assert i < len(words), words
    while i < len(words):
        if _kind(words[i]) == "oi":
            i += 1
        else:
            j = _subject(words, i)
            assert words[j - 1][:2] == "vi", (words, i, j)  # "S rpi S VT" ends in its verb
            i = j


def _to_target(word: str) -> str:
    """si3 -> so3, oi3 -> oo3, vi3 -> vo3, rpi -> rpo."""
    return word[:-1] + "o" if word == "rpi" else word[0] + "o" + word[2:]


def svo_reference(source: list[str]) -> list[str]:
    """The SOV sentence of an SVO source: the main verb moved after its object."""
    verb = _subject(source, 0)
    assert verb < len(source) and _kind(source[verb]) == "vi", source
    _check_object(source, verb + 1)
    order = source[:verb] + source[verb + 1 :] + [source[verb]]
    return [_to_target(w) for w in order]


# Conjugation: with P = "article noun and article noun", B is exactly P {(or | W) P | W}*
# (B -> B or B | B W B | B W | P, read left to right), and the target translates word by
# word, the article by its noun's gender.
_CONJ_SOURCE = re.compile(r"P((o|w)P|w)*")
_ARTICLES = {("the", "m"): "der", ("the", "f"): "die", ("the", "n"): "das"}
_ARTICLES |= {("a", "m"): "ein", ("a", "f"): "eine", ("a", "n"): "ein"}


def conjugation_reference(source: list[str]) -> list[str]:
    """The gendered sentence of a genderless source; fails unless the source parses."""
    kinds = "".join(
        "a" if w in ("the", "a") else "&" if w == "and" else "o" if w == "or" else w[0]
        for w in source
    )
    assert _CONJ_SOURCE.fullmatch(re.sub(r"a[mfn]&a[mfn]", "P", kinds)), source
    target = []
    for i, w in enumerate(source):
        if w in ("the", "a"):
            target.append(_ARTICLES[w, source[i + 1][0]])
        elif w in ("and", "or"):
            target.append({"and": "und", "or": "oder"}[w])
        else:
            target.append(w[0] + "g" + w[2:])
    return target


# --- the paper's grammars -------------------------------------------------------------


def test_parsers_reject_wrong_pairs() -> None:
    assert svo_reference(["si1", "vi2", "oi3"]) == ["so1", "oo3", "vo2"]
    assert svo_reference("si1 rpi si2 vi3 vi4 si5 rpi si6 vi7".split()) == (
        "so1 rpo so2 vo3 so5 rpo so6 vo7 vo4".split()
    )
    for bad in ("si1 oi2", "si1 vi2", "oi1 vi2 oi3", "si1 vi2 si3", "si1 rpi vi2 vi3 oi4"):
        with pytest.raises(AssertionError):
            svo_reference(bad.split())
    assert conjugation_reference("a fe1 and the ne2 we3 or the me4 and a me5".split()) == (
        "eine fg1 und das ng2 wg3 oder der mg4 und ein mg5".split()
    )
    for bad in ("the me1", "the me1 and the fe2 or", "we1 the me1 and the fe2"):
        with pytest.raises(AssertionError):
            conjugation_reference(bad.split())


@pytest.mark.parametrize(
    ("grammar", "reference"),
    [(SVO_TO_SOV, svo_reference), (GENDERLESS_TO_GENDERED, conjugation_reference)],
)
@pytest.mark.parametrize(("low", "high", "n"), [(8, 64, 150), (65, 128, 6)])
def test_pairs_are_derivable_and_in_range(
    grammar: ITG, reference: object, low: int, high: int, n: int
) -> None:
    rng = np.random.default_rng(low)
    for _ in range(n):
        source, target = sample_pair(grammar, rng, low, high)
        assert low <= len(source) <= high
        assert target == reference(source)  # type: ignore[operator]
        assert set(source) <= set(grammar.source_words)
        assert set(target) <= set(grammar.target_words)


def test_every_rule_is_used() -> None:
    rng = np.random.default_rng(1)
    svo = [w for _ in range(100) for w in sample_pair(SVO_TO_SOV, rng, 8, 64)[0]]
    assert {w[:2] for w in svo} == {"si", "oi", "vi", "rp"}
    conj = [sample_pair(GENDERLESS_TO_GENDERED, rng, 8, 64) for _ in range(100)]
    source = {w for s, _ in conj for w in s}
    assert {"or", "and", "the", "a"} <= source
    assert {w[0] for w in source} >= {"w", "m", "f", "n"}
    pairs = {(s[i], t[i], s[i + 1][0]) for s, t in conj for i in range(len(s) - 1)}
    articles = {p for p in pairs if p[0] in ("the", "a")}
    assert articles == {(e, g, c) for (e, c), g in _ARTICLES.items()}


def test_vocabulary_sizes() -> None:
    # About 128 source words by default (the paper's section 4); Table 1's 1/33 and 1/25
    # on request.
    assert len(SVO_TO_SOV.source_words) == len(SVO_TO_SOV.target_words) == 3 * 42 + 1
    assert len(GENDERLESS_TO_GENDERED.source_words) == 4 * 32 + 4
    assert len(GENDERLESS_TO_GENDERED.target_words) == 4 * 32 + 7
    assert len(svo_to_sov(33).source_words) == 100
    assert len(genderless_to_gendered(25).source_words) == 104
    assert SVO_TO_SOV.min_length == 3
    assert GENDERLESS_TO_GENDERED.min_length == 5


def test_table_probabilities() -> None:
    probabilities = {h: [r.probability for r in rs] for h, rs in SVO_TO_SOV.rules.items()}
    assert probabilities == {"A": [1.0], "S": [0.2, 0.2, 0.6], "O": [0.2, 0.2, 0.6]}
    rules = GENDERLESS_TO_GENDERED.rules
    assert [r.probability for r in rules["B"]] == [0.25, 0.25, 0.5]
    assert [r.probability for r in rules["V"]] == [0.75, 0.25]
    assert [r.probability for r in rules["S"]] == [1 / 6] * 6
    assert str(rules["B"][2]) == "B1 V2 | B1 V2"


def test_critical_variants_reach_long_sources_more_often() -> None:
    def long_share(grammar: ITG) -> float:
        rng = np.random.default_rng(0)
        draws = [grammar.derive(rng, 128) for _ in range(1500)]
        return np.mean([d is not None and len(d[0]) >= 65 for d in draws])

    assert long_share(svo_to_sov(recursion=1 / 4)) > 2 * long_share(SVO_TO_SOV)
    critical = genderless_to_gendered(b=(0.2, 0.4, 0.4), v=(0.5, 0.5))
    assert long_share(critical) > 5 * long_share(GENDERLESS_TO_GENDERED)


def test_bad_builder_arguments() -> None:
    with pytest.raises(ValueError, match="words_per_class"):
        svo_to_sov(0)
    with pytest.raises(ValueError, match="words_per_class"):
        genderless_to_gendered(2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="recursion"):
        svo_to_sov(recursion=0.5)
    with pytest.raises(ValueError, match="b: expected 3 positive numbers"):
        genderless_to_gendered(b=(0.5, 0.5, 0.5))
    with pytest.raises(ValueError, match="v: expected 2 positive numbers"):
        genderless_to_gendered(v=(1.0, 0.0))
