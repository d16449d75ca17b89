"""Inversion transduction grammars (ITGs) and the two of Grefenstette et al. (2015).

A rule ``source | target`` rewrites a nonterminal on both sides at once. Its right-hand
sides hold words and indexed constituents (``S1``, ``VT2``): a constituent is derived once,
and the index says where the same derivation stands on the target side, so a rule may
reorder (invert) its constituents but never splits one. A terminal class (``ST``, ``M``, ...)
is a constituent that derives one of its n word pairs, each with probability 1/n; the words
carry the pair's number (class ``ST`` has the pairs si0 | so0, ..., si{n-1} | so{n-1}).
``sample_pair`` draws whole derivations and rejects those whose source length falls outside
the range asked for; a draw is abandoned as soon as the source words chosen plus the fewest
the pending constituents can still derive exceed the longest length allowed, so it never
runs away (the conjugation grammar below is supercritical: 60% of its derivations are
infinite).

The two grammars of the paper's Appendix C, Table 1 (A is the root; probabilities first):

SVO -> SOV (``SVO_TO_SOV``, built by ``svo_to_sov``):

=========  ===================================================
1          A -> S1 VT2 O3 | S1 O3 VT2
r          S -> S1 S2 | S1 S2
r          S -> S1 rpi S2 VT3 | S1 rpo S2 VT3
1 - 2r     S -> ST1 | ST1
r          O -> O1 O2 | O1 O2
r          O -> S1 rpi S2 VT3 | S1 rpo S2 VT3
1 - 2r     O -> OT1 | OT1
1/n each   ST -> si_i | so_i;  OT -> oi_i | oo_i;  VT -> vi_i | vo_i
=========  ===================================================

with r = 1/5 in the table. The main clause's verb moves after its object; relative clauses
(``rpi``, "who/which") are verb-final on both sides.

Genderless -> gendered (``GENDERLESS_TO_GENDERED``, built by ``genderless_to_gendered``):

=========  ===================================================
1          A -> B1 | B1
b_or       B -> B1 or B2 | B1 oder B2
b_and      B -> S1 and S2 | S1 und S2
b_v        B -> B1 V2 | B1 V2
v_wb       V -> W1 B2 | W1 B2
v_w        V -> W1 | W1
1/6 each   S -> the M1 | der M1;  the F1 | die F1;  the N1 | das N1;
           a M1 | ein M1;  a F1 | eine F1;  a N1 | ein N1
1/n each   W -> we_i | wg_i;  M -> me_i | mg_i;  F -> fe_i | fg_i;  N -> ne_i | ng_i
=========  ===================================================

with (b_or, b_and, b_v) = (1/4, 1/4, 1/2) and (v_wb, v_w) = (3/4, 1/4) in the table, which
writes the third B rule ``B1 V1 | B1 V1``: two constituents cannot share an index, so it is
read as ``B1 V2``. The word order is kept; each article takes the gender of its noun.

Vocabulary: the table gives each word pair 1/33 (SVO) and 1/25 (conjugation), that is 33
and 25 pairs per class (100 source words for SVO, 104 for conjugation), while the paper's
text (section 4 and Appendix C) balances the classes so that the vocabulary totals about
128 words, as in its other tasks. The defaults follow the text and so deviate from the
table: 42 pairs per class for SVO (127 source and 127 target words with ``rpi``/``rpo``)
and 32 for conjugation (132 source words with the, a, and, or; 135 target words with der,
die, das, ein, eine, und, oder). ``words_per_class=33`` or ``25`` gives the table's. The
class size changes the vocabulary only, not the lengths: a class derives one word whatever
its size, and a draw takes the same random numbers, so a seed gives the same lengths.

Lengths. The paper tuned the recursive rules by hand so that source lengths 8-128 are
roughly uniform; the table's numbers do not give that. The rates below are the fraction of
single draws whose source length falls in training's [8, 64] and in testing's [65, 128],
measured over 100 000 draws (seed 0), with the share of draws in each eighth of 8-128:

=======================  =======  ========  ===============================================
grammar                  [8, 64]  [65,128]  8-21, 22-35, ..., 113-128 (share of draws)
=======================  =======  ========  ===============================================
SVO, table               0.358    0.0147    .253 .065 .026 .013 .008 .004 .002 .001
SVO, critical            0.360    0.0569    .216 .075 .041 .028 .021 .015 .012 .009
conjugation, table       0.113    0.0021    .083 .020 .007 .003 .001 .0005 .0002 0
conjugation, critical    0.324    0.0533    .190 .068 .039 .027 .019 .015 .011 .009
=======================  =======  ========  ===============================================

The table's grammars are subcritical (SVO: 0.8 recursive constituents per S or O) or, for
conjugation, supercritical (1.375 B per B, so the finite derivations are those of a
subcritical process), and either way long sources are exponentially rare: none of 100 000
conjugation draws had 113 to 128 words. The "critical" rows, r = 1/4 for SVO and
(b_or, b_and, b_v) = (0.2, 0.4, 0.4), (v_wb, v_w) = (0.5, 0.5) for conjugation, make each
grammar critical (one recursive constituent per constituent on average), which makes
the test range about 4 and 25 times likelier and its length profile flatter; lengths in a
branching process still fall off as n^(-3/2), so no setting of these probabilities is
uniform. The constants keep the table's rule probabilities; pass ``recursion=1/4`` or
``b=(0.2, 0.4, 0.4), v=(0.5, 0.5)`` for the critical ones.

>>> import numpy as np
>>> source, target = sample_pair(svo_to_sov(3), np.random.default_rng(0), 4, 8)
>>> source
['si2', 'si2', 'si2', 'rpi', 'si0', 'vi2', 'vi0', 'oi0']
>>> target
['so2', 'so2', 'so2', 'rpo', 'so0', 'vo2', 'oo0', 'vo0']
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np

from memrnn.languages.derivations import shortest_lengths
from memrnn.validation import (
    check_distribution,
    check_float,
    check_generator,
    check_int,
    check_int_range,
)

# "NAME<digits>" on a rule side is a nonterminal or terminal class with its alignment index.
_REF = re.compile(r"([A-Z][A-Z_]*)(\d+)")


@dataclass(frozen=True)
class Ref:
    """A nonterminal or terminal class on one side of a rule.

    Attributes:
        name: the nonterminal or terminal class.
        index: the alignment index: the source occurrence and the target occurrence with the
            same index are one constituent, derived once and written on both sides.
    """

    name: str
    index: int


Item: TypeAlias = "str | Ref"
"""A word (a terminal written as is) or a reference to a constituent."""


@dataclass(frozen=True)
class ITGRule:
    """One rule ``source | target`` of an ITG with its probability.

    Both sides hold the same references (the same names under the same indices), each once;
    words may differ between the sides and appear on one side only.
    """

    source: tuple[Item, ...]
    target: tuple[Item, ...]
    probability: float

    def __post_init__(self) -> None:
        check_float("probability", self.probability, above=0.0, maximum=1.0)
        refs = [x for x in self.source if isinstance(x, Ref)]
        if len({r.index for r in refs}) != len(refs):
            raise ValueError(f"rule {self}: an index is used twice on the source side")
        target_refs = [x for x in self.target if isinstance(x, Ref)]
        if sorted(target_refs, key=_ref_key) != sorted(refs, key=_ref_key):
            raise ValueError(f"rule {self}: the two sides do not hold the same constituents")

    def __str__(self) -> str:
        return f"{_side_text(self.source)} | {_side_text(self.target)}"

    @classmethod
    def parse(cls, text: str, probability: float) -> ITGRule:
        """The rule written ``"S1 VT2 O3 | S1 O3 VT2"``: tokens split on white space, an
        upper-case name followed by digits is a ``Ref``, anything else a word."""
        sides = text.split("|")
        if len(sides) != 2:
            raise ValueError(f"rule {text!r}: expected 'source | target'")
        source, target = (tuple(_parse_item(t) for t in side.split()) for side in sides)
        return cls(source, target, probability)


def _parse_item(token: str) -> Item:
    match = _REF.fullmatch(token)
    return Ref(match.group(1), int(match.group(2))) if match else token


def _ref_key(ref: Ref) -> tuple[int, str]:
    return ref.index, ref.name


def _side_text(side: tuple[Item, ...]) -> str:
    return " ".join(x if isinstance(x, str) else f"{x.name}{x.index}" for x in side)


class _Node:
    """A constituent of a derivation: a chosen rule and its children, or a word pair."""

    __slots__ = ("children", "pair", "rule", "symbol")

    def __init__(self, symbol: str) -> None:
        self.symbol = symbol
        self.rule: ITGRule | None = None
        self.children: dict[int, _Node] = {}
        self.pair: tuple[str, str] | None = None


@dataclass(frozen=True)
class ITG:
    """A probabilistic inversion transduction grammar.

    Attributes:
        start: the root nonterminal.
        rules: for each nonterminal its rules, whose probabilities sum to 1.
        classes: for each terminal class its word pairs ``(source word, target word)``,
            each chosen with probability 1 / (number of pairs).
    """

    start: str
    rules: Mapping[str, tuple[ITGRule, ...]]
    classes: Mapping[str, tuple[tuple[str, str], ...]]
    # Derived once: the fewest source words each symbol derives, and per nonterminal the
    # cumulative probabilities, the rules, and each rule's fewest source words.
    _min_length: dict[str, int] = field(init=False, repr=False, compare=False)
    _tables: dict[str, tuple[np.ndarray, list[ITGRule], list[int]]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.start not in self.rules:
            raise ValueError(f"start: {self.start!r} has no rules")
        both = sorted(set(self.rules) & set(self.classes))
        if both:
            raise ValueError(f"classes: {both} are also nonterminals")
        for name, pairs in self.classes.items():
            if not pairs or not all(
                len(p) == 2 and all(isinstance(w, str) and w for w in p) for p in pairs
            ):
                raise ValueError(f"classes[{name!r}]: expected a non-empty tuple of word pairs")
        for head, rules in self.rules.items():
            if not rules:
                raise ValueError(f"rules[{head!r}]: no rules")
            total = sum(r.probability for r in rules)
            if abs(total - 1.0) > 1e-9:
                raise ValueError(f"rules[{head!r}]: probabilities sum to {total}, not 1")
            for rule in rules:
                unknown = [
                    x.name
                    for x in rule.source
                    if isinstance(x, Ref)
                    and x.name not in self.rules
                    and x.name not in self.classes
                ]
                if unknown:
                    raise ValueError(f"rules[{head!r}]: {rule} names unknown symbols {unknown}")
        sources = {
            head: [[x.name if isinstance(x, Ref) else None for x in r.source] for r in rules]
            for head, rules in self.rules.items()
        }
        # a class derives one word; _side_min looks classes up too
        min_length = shortest_lengths(sources, "rules", "pair") | dict.fromkeys(self.classes, 1)
        object.__setattr__(self, "_min_length", min_length)
        tables = {
            head: (
                np.cumsum([r.probability for r in rules]),
                list(rules),
                [_side_min(r.source, min_length) for r in rules],
            )
            for head, rules in self.rules.items()
        }
        object.__setattr__(self, "_tables", tables)

    @property
    def min_length(self) -> int:
        """The fewest source words of any derivation."""
        return self._min_length[self.start]

    @property
    def source_words(self) -> tuple[str, ...]:
        """Every source word, in order of first appearance: the rules' words, then the
        classes' words."""
        return self._words(0)

    @property
    def target_words(self) -> tuple[str, ...]:
        """Every target word, ordered as ``source_words``."""
        return self._words(1)

    def _words(self, side: int) -> tuple[str, ...]:
        words: dict[str, None] = {}
        for rules in self.rules.values():
            for rule in rules:
                for x in (rule.source, rule.target)[side]:
                    if isinstance(x, str):
                        words[x] = None
        for pairs in self.classes.values():
            words.update((p[side], None) for p in pairs)
        return tuple(words)

    def derive(
        self, rng: np.random.Generator, max_length: int
    ) -> tuple[list[str], list[str]] | None:
        """One random derivation as (source words, target words); None as soon as its source
        must exceed ``max_length`` words.

        The derivation is abandoned once the source words chosen plus the fewest the pending
        constituents can still derive exceed ``max_length`` (or after 4 * max_length + 64
        expansions, a guard for rules that add no source word), so it never runs away even
        when the grammar is supercritical.
        """
        root = _Node(self.start)
        pending = [root]  # top is the leftmost constituent still to derive
        bound = self._min_length[self.start]  # words chosen + the fewest pending can derive
        expansions = 0
        while pending:
            node = pending.pop()
            pairs = self.classes.get(node.symbol)
            if pairs is not None:  # a class derives exactly one word: bound holds
                node.pair = pairs[min(int(rng.random() * len(pairs)), len(pairs) - 1)]
                continue
            expansions += 1
            if bound > max_length or expansions > 4 * max_length + 64:
                return None
            cumulative, rules, lengths = self._tables[node.symbol]
            i = min(int(np.searchsorted(cumulative, rng.random(), side="right")), len(rules) - 1)
            node.rule = rule = rules[i]
            bound += lengths[i] - self._min_length[node.symbol]
            for x in reversed(rule.source):
                if isinstance(x, Ref):
                    node.children[x.index] = child = _Node(x.name)
                    pending.append(child)
        if bound > max_length:
            return None
        return _spell(root, 0), _spell(root, 1)


def _spell(root: _Node, side: int) -> list[str]:
    """The words of one side (0 source, 1 target) of a finished derivation."""
    words: list[str] = []
    pending: list[str | _Node] = [root]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            words.append(item)
        else:
            if item.pair is not None:
                words.append(item.pair[side])
            else:
                assert item.rule is not None
                for x in reversed((item.rule.source, item.rule.target)[side]):
                    pending.append(x if isinstance(x, str) else item.children[x.index])
    return words


def _side_min(side: Sequence[Item], min_length: Mapping[str, int]) -> int:
    return sum(1 if isinstance(x, str) else min_length[x.name] for x in side)


def sample_pair(
    grammar: ITG,
    rng: np.random.Generator,
    min_length: int,
    max_length: int,
    max_tries: int = 100_000,
) -> tuple[list[str], list[str]]:
    """One (source, target) pair of ``grammar`` whose source has min_length to max_length
    words.

    Whole derivations are drawn until one's source length falls in the range (rejection);
    a draw is abandoned as soon as its source must exceed ``max_length``.

    Args:
        grammar: the ITG.
        rng: the random generator; it is advanced.
        min_length, max_length: the source length range, 1 <= min_length <= max_length.
        max_tries: draws allowed before giving up, >= 1.

    Raises:
        ValueError: a bad argument, a range below the grammar's shortest source, or
            ``max_tries`` draws none of which fell in the range.
    """
    if not isinstance(grammar, ITG):
        raise ValueError(f"grammar: expected an ITG, got {type(grammar).__name__}")
    check_generator("rng", rng)
    min_length, max_length = check_int_range(
        ("min_length", "max_length"), min_length, max_length, 1
    )
    check_int("max_tries", max_tries, 1)
    if grammar.min_length > max_length:
        raise ValueError(
            f"max_length: {max_length} is below the grammar's shortest source "
            f"({grammar.min_length} words)"
        )
    for _ in range(max_tries):
        pair = grammar.derive(rng, int(max_length))
        if pair is not None and len(pair[0]) >= min_length:
            return pair
    raise ValueError(
        f"max_tries: {max_tries} draws gave no source of {min_length} to {max_length} "
        "words; widen the range or raise max_tries"
    )


def _class(source: str, target: str, n: int) -> tuple[tuple[str, str], ...]:
    return tuple((f"{source}{i}", f"{target}{i}") for i in range(n))


def svo_to_sov(words_per_class: int = 42, recursion: float = 1 / 5) -> ITG:
    """The SVO -> SOV grammar (module docstring).

    Args:
        words_per_class: word pairs in each of ST, OT and VT (the table's 1/33 is 33).
        recursion: the probability of each of the two recursive rules of S and of O (the
            table's 1/5); the one-word rule gets 1 - 2 * recursion.
    """
    check_int("words_per_class", words_per_class, 1)
    check_float("recursion", recursion, above=0.0, below=0.5)
    r = ITGRule.parse
    return ITG(
        "A",
        {
            "A": (r("S1 VT2 O3 | S1 O3 VT2", 1.0),),
            "S": (
                r("S1 S2 | S1 S2", recursion),
                r("S1 rpi S2 VT3 | S1 rpo S2 VT3", recursion),
                r("ST1 | ST1", 1.0 - 2 * recursion),
            ),
            "O": (
                r("O1 O2 | O1 O2", recursion),
                r("S1 rpi S2 VT3 | S1 rpo S2 VT3", recursion),
                r("OT1 | OT1", 1.0 - 2 * recursion),
            ),
        },
        {
            "ST": _class("si", "so", words_per_class),
            "OT": _class("oi", "oo", words_per_class),
            "VT": _class("vi", "vo", words_per_class),
        },
    )


def genderless_to_gendered(
    words_per_class: int = 32,
    b: tuple[float, float, float] = (1 / 4, 1 / 4, 1 / 2),
    v: tuple[float, float] = (3 / 4, 1 / 4),
) -> ITG:
    """The genderless -> gendered conjugation grammar (module docstring).

    Args:
        words_per_class: word pairs in each of W, M, F and N (the table's 1/25 is 25).
        b: the probabilities of B's rules "or", "and" and "B V".
        v: the probabilities of V's rules "W B" and "W".
    """
    check_int("words_per_class", words_per_class, 1)
    check_distribution("b", b, 3)
    check_distribution("v", v, 2)
    r = ITGRule.parse
    articles = [
        ("the", "der", "M"),
        ("the", "die", "F"),
        ("the", "das", "N"),
        ("a", "ein", "M"),
        ("a", "eine", "F"),
        ("a", "ein", "N"),
    ]
    return ITG(
        "A",
        {
            "A": (r("B1 | B1", 1.0),),
            "B": (
                r("B1 or B2 | B1 oder B2", b[0]),
                r("S1 and S2 | S1 und S2", b[1]),
                r("B1 V2 | B1 V2", b[2]),  # the table's "B1 V1" reuses index 1: a typo
            ),
            "V": (r("W1 B2 | W1 B2", v[0]), r("W1 | W1", v[1])),
            "S": tuple(r(f"{e} {c}1 | {g} {c}1", 1 / 6) for e, g, c in articles),
        },
        {
            "W": _class("we", "wg", words_per_class),
            "M": _class("me", "mg", words_per_class),
            "F": _class("fe", "fg", words_per_class),
            "N": _class("ne", "ng", words_per_class),
        },
    )


SVO_TO_SOV = svo_to_sov()
"""The SVO -> SOV grammar with the table's probabilities."""

GENDERLESS_TO_GENDERED = genderless_to_gendered()
"""The genderless -> gendered grammar with the table's probabilities."""
