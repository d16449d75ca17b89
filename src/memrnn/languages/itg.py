"""Inversion transduction grammars (ITGs), as Grefenstette et al. (2015) use them to make
transduction tasks (*Learning to Transduce with Unbounded Memory*, Appendix C).

A rule ``source | target`` rewrites a nonterminal on both sides at once. Its right-hand
sides hold words and indexed constituents (``S1``, ``VT2``): a constituent is derived once,
and the index says where the same derivation stands on the target side, so a rule may
reorder (invert) its constituents but never splits one. A terminal class is a constituent
that derives one of its n word pairs, each with probability 1/n. ``sample_pair`` draws whole
derivations and rejects those whose source length falls outside the range asked for; a
draw is abandoned as soon as the source words chosen plus the fewest the pending
constituents can still derive exceed the longest length allowed, so it never runs away,
even when the grammar is supercritical (most of its derivations infinite). The paper's two
grammars are :mod:`memrnn.languages.grammars`.

>>> import numpy as np
>>> inverted = ITG(
...     "A",
...     {"A": (ITGRule.parse("X1 Y2 | Y2 X1", 1.0),)},
...     {"X": (("a", "A"),), "Y": (("b", "B"), ("c", "C"))},
... )
>>> sample_pair(inverted, np.random.default_rng(0), 1, 5)
(['a', 'b'], ['B', 'A'])
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from memrnn.languages.derivations import shortest_lengths
from memrnn.languages.uniforms import Uniforms
from memrnn.validation import check_float, check_generator, check_int, check_int_range

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
    # Derived once: the fewest source words each symbol derives; per nonterminal the
    # cumulative probabilities of its rules (the last raised to infinity, so that a draw
    # that rounding leaves above the true last sum still picks the last rule) with, per
    # rule, how much it raises the bound on the source's length, its children (index,
    # nonterminal) in the order they are pushed and their names alone; and per class its
    # number of pairs, then the pairs. A derivation does no other work per expansion.
    _min_length: dict[str, int] = field(init=False, repr=False, compare=False)
    _tables: dict[str, tuple[list[float], list[_Choice]]] = field(
        init=False, repr=False, compare=False
    )
    _classes: dict[str, tuple[Any, ...]] = field(init=False, repr=False, compare=False)

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

        def choice(head: str, rule: ITGRule) -> _Choice:
            grows = _side_min(rule.source, min_length) - min_length[head]
            refs = tuple((x.index, x.name) for x in reversed(rule.source) if isinstance(x, Ref))
            return rule, grows, refs, tuple(name for _, name in refs)

        tables = {
            head: (
                [*np.cumsum([r.probability for r in rules]).tolist()[:-1], math.inf],
                [choice(head, r) for r in rules],
            )
            for head, rules in self.rules.items()
        }
        object.__setattr__(self, "_tables", tables)
        classes = {name: (len(pairs), *pairs) for name, pairs in self.classes.items()}
        object.__setattr__(self, "_classes", classes)

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
        return self._derive(rng.random, 0, max_length)

    def _most_draws(self, max_length: int) -> int:
        """The most uniform draws one derivation takes: one per expansion and one per
        terminal class, each class a child of an expansion."""
        widest = max(len(c[2]) for _, choices in self._tables.values() for c in choices)
        return (4 * max_length + 64) * (1 + widest)

    def _derive(
        self, draw: Callable[[], float], min_length: int, max_length: int
    ) -> tuple[list[str], list[str]] | None:
        """``derive`` with its uniform draws from ``draw``, and None too for a source of
        fewer than ``min_length`` words. The choices are kept in the order made and the
        words spelled out only for a derivation that is kept, which most are not."""
        classes, tables = self._classes, self._tables
        pending = [self.start]  # top is the leftmost constituent still to derive
        pop, push = pending.pop, pending.extend
        picks: list[_Choice | tuple[str, str]] = []  # each constituent's rule or word pair
        pick = picks.append
        bound = self._min_length[self.start]  # words chosen + the fewest pending can derive
        expansions, most = 0, 4 * max_length + 64
        while pending:
            symbol = pop()
            pairs = classes.get(symbol)
            if pairs is not None:  # a class derives exactly one word: bound holds
                k = int(draw() * pairs[0])
                pick(pairs[k + 1 if k < pairs[0] else k])  # rounding may give n: the last
                continue
            expansions += 1
            if bound > max_length or expansions > most:
                return None
            cumulative, choices = tables[symbol]
            choice = choices[bisect_right(cumulative, draw())]
            pick(choice)
            bound += choice[1]
            push(choice[3])
        # every constituent derived, bound is the source's length
        if not min_length <= bound <= max_length:
            return None
        root = _tree(self.start, picks)
        return _spell(root, 0), _spell(root, 1)


_Choice: TypeAlias = "tuple[ITGRule, int, tuple[tuple[int, str], ...], tuple[str, ...]]"
"""A rule as a derivation uses it: the rule, how much it raises the bound on the source's
length, its children (index, name) in the order pushed, and their names alone."""


def _tree(start: str, picks: Sequence[_Choice | tuple[str, str]]) -> _Node:
    """The derivation of the rules and word pairs ``picks``, chosen in the order of a
    leftmost derivation from ``start``."""
    root = _Node(start)
    pending = [root]
    for pick in picks:
        node = pending.pop()
        if isinstance(pick[0], ITGRule):
            node.rule = pick[0]
            for index, name in pick[2]:
                node.children[index] = child = _Node(name)
                pending.append(child)
        else:
            node.pair = pick
    return root


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
    return sample_pairs(grammar, rng, 1, min_length, max_length, max_tries)[0]


def sample_pairs(
    grammar: ITG,
    rng: np.random.Generator,
    n: int,
    min_length: int,
    max_length: int,
    max_tries: int = 100_000,
) -> list[tuple[list[str], list[str]]]:
    """``n`` pairs of ``sample_pair``, one after another from ``rng`` (the same pairs as n
    calls of it); ``max_tries`` holds for each pair.

    Raises:
        ValueError: as ``sample_pair``, or a bad ``n`` (>= 0).
    """
    if not isinstance(grammar, ITG):
        raise ValueError(f"grammar: expected an ITG, got {type(grammar).__name__}")
    check_generator("rng", rng)
    check_int("n", n, 0)
    min_length, max_length = check_int_range(
        ("min_length", "max_length"), min_length, max_length, 1
    )
    check_int("max_tries", max_tries, 1)
    if grammar.min_length > max_length:
        raise ValueError(
            f"max_length: {max_length} is below the grammar's shortest source "
            f"({grammar.min_length} words)"
        )
    low, high = int(min_length), int(max_length)
    most = grammar._most_draws(high)
    pairs = []
    with Uniforms(rng) as uniforms:  # the draws of rng.random(), taken ahead
        for _ in range(n):
            for _ in range(max_tries):
                uniforms.reserve(most)
                pair = grammar._derive(uniforms.next, low, high)
                if pair is not None:
                    pairs.append(pair)
                    break
            else:
                raise ValueError(
                    f"max_tries: {max_tries} draws gave no source of {min_length} to "
                    f"{max_length} words; widen the range or raise max_tries"
                )
    return pairs
