"""Random words of the paper's languages, drawn from one probabilistic grammar each.

Section 4 samples "from a probabilistic context-free grammar for the respective language",
training words up to length 50 and test words from length 50, and leaves the parameters to
its code repository, which this project does not have. The grammars below are ours; each
generates exactly the language its LR(1)-automaton accepts (the tests check every sampled
word against the automaton and the direct recogniser). A draw whose length falls outside
[min_length, max_length] is rejected whole and drawn again; a draw is abandoned as soon as
the symbols it has emitted plus the fewest its pending nonterminals can still emit exceed
max_length, so no draw runs away.

Rule probabilities (terminals in quotes; in Dyck-k each rule that writes a bracket pair
stands for k rules, one per kind of bracket, sharing its probability evenly):

==============  ==================================================================
language        rules (probability)
==============  ==================================================================
dyck1/2/3       S -> '(' E ')' S (0.85), '(' E ')' (0.15);
                E -> (empty) (0.55), '(' E ')' E (0.45)
anbn            S -> 'a' S 'b' (0.95), 'a' 'b' (0.05)
palindrome      S -> 'a' S 'a' (0.475), 'b' S 'b' (0.475), '$' (0.05)
json            J -> '{' O '}' (0.45), '[' A ']' (0.45), 'n', 's', '{' '}',
                '[' ']' (0.025 each);
                V -> 'n' (0.35), 's' (0.35), '{' '}' (0.05), '[' ']' (0.05),
                '{' O '}' (0.1), '[' A ']' (0.1);
                O -> 'k' ':' V (0.25), 'k' ':' V ',' O (0.75);
                A -> V (0.25), V ',' A (0.75)
latch           O -> '0' O (0.5), '1' E (0.5);
                E -> (empty) (0.04), '0' E (0.48), '1' O (0.48)
==============  ==================================================================

S in Dyck is a non-empty sequence of blocks, E any balanced word (empty included) inside a
block; json's J is the top-level value, V a nested one (the same choices, with containers
likelier at the top so that words are rarely a lone symbol); latch's O and E mean an odd
and an even number of ones so far, so the word may stop only in E. Every grammar generates
its whole language (every word has a derivation), not only some of it.

What the numbers give, measured over 4000 draws cut at length 100 (seed 0):

==============  ==============  ==============  =======================
language        P(len <= 50)    P(50..100)      median length if <= 50
==============  ==============  ==============  =======================
dyck1/2/3       0.62            0.17            14
anbn            0.72            0.22            18
palindrome      0.72            0.20            17
json            0.79            0.09            9
latch           0.64            0.23            19
==============  ==============  ==============  =======================

a^n b^n and palindromes have one length per depth, geometric with ratio 0.95; Dyck's
blocks number 1/0.15 on average, with nesting subcritical (0.9 blocks per E); json's top
level has 4 members or elements on average, nested containers 0.8 per value; latch stops
with probability 0.04 per symbol written in E, about every 50 symbols.

>>> import numpy as np
>>> sample_words("json", np.random.default_rng(0), 3, 1, 20)
['[{k:{}}]', '{k:s,k:s,k:n}', 's']
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from memrnn.errors import UserError
from memrnn.languages.derivations import shortest_lengths
from memrnn.languages.uniforms import Uniforms
from memrnn.validation import check_distribution, check_generator, check_int, check_int_range


@dataclass(frozen=True)
class ProbabilisticGrammar:
    """A probabilistic context-free grammar over one-character symbols.

    Attributes:
        start: the start nonterminal.
        productions: for each nonterminal, its right-hand sides as strings of one-character
            symbols ("" for the empty word) with their probabilities, which sum to 1. A
            symbol that is not a key is a terminal.
    """

    start: str
    productions: Mapping[str, tuple[tuple[str, float], ...]]
    # Derived once: the shortest word each nonterminal derives, and per nonterminal the
    # cumulative probabilities (the last raised to infinity, so a draw that rounding leaves
    # above the true last sum still picks the last side) with, for each right-hand side,
    # its leading terminals (written at once), the rest in the order it is pushed
    # (reversed, runs of terminals joined) and how much it raises the bound on the word's
    # length, so one uniform draw picks one and the loop does no other arithmetic.
    _min_length: dict[str, int] = field(init=False, repr=False, compare=False)
    _tables: dict[str, tuple[list[float], list[tuple[str, tuple[str, ...], int]]]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.start not in self.productions:
            raise ValueError(f"start: {self.start!r} has no productions")
        for head, rules in self.productions.items():
            if len(head) != 1:
                raise ValueError(f"productions: nonterminal {head!r} is not one character")
            if not rules:
                raise ValueError(f"productions[{head!r}]: no right-hand sides")
            check_distribution(f"productions[{head!r}]", [p for _, p in rules], len(rules))
        sides = {head: [rhs for rhs, _ in rules] for head, rules in self.productions.items()}
        shortest = shortest_lengths(sides, "productions", "word")
        object.__setattr__(self, "_min_length", shortest)

        def pushed(head: str, rhs: str) -> tuple[str, tuple[str, ...], int]:
            grows = sum(shortest.get(s, 1) for s in rhs) - shortest[head]
            items: list[str] = []  # each nonterminal alone, each run of terminals joined
            for symbol in rhs:
                joins = items and items[-1][-1] not in self.productions
                if symbol not in self.productions and joins:
                    items[-1] += symbol
                else:
                    items.append(symbol)
            lead = items.pop(0) if items and items[0][0] not in self.productions else ""
            return lead, tuple(reversed(items)), grows

        tables = {
            head: (
                [*np.cumsum([p for _, p in rules]).tolist()[:-1], math.inf],
                [pushed(head, rhs) for rhs, _ in rules],
            )
            for head, rules in self.productions.items()
        }
        object.__setattr__(self, "_tables", tables)

    @property
    def terminals(self) -> frozenset[str]:
        """Every symbol on a right-hand side that is not a nonterminal."""
        return frozenset(
            s for rules in self.productions.values() for rhs, _ in rules for s in rhs
        ) - frozenset(self.productions)

    def derive(self, rng: np.random.Generator, max_length: int) -> str | None:
        """One random leftmost derivation; None as soon as it must exceed ``max_length``.

        The derivation is abandoned once the symbols emitted plus the fewest the pending
        nonterminals can still emit exceed ``max_length`` (or after 4 * max_length + 64
        expansions, a guard for grammars with chains that emit nothing).
        """
        return self._derive(rng.random, max_length)

    def _derive(self, draw: Callable[[], float], max_length: int) -> str | None:
        """``derive`` with its uniform draws from ``draw`` (at most 4 * max_length + 64)."""
        tables = self._tables
        word: list[str] = []  # runs of terminals
        pending = [self.start]  # top is the leftmost symbol (or run) still to derive
        pop, push, write = pending.pop, pending.extend, word.append
        bound = self._min_length[self.start]  # len(word) + the fewest pending can emit
        expansions, most = 0, 4 * max_length + 64
        while pending:
            symbol = pop()
            table = tables.get(symbol)
            if table is None:
                write(symbol)
                continue
            if bound > max_length or expansions == most:
                return None
            expansions += 1
            cumulative, sides = table
            lead, symbols, grows = sides[bisect_right(cumulative, draw())]
            write(lead)
            bound += grows
            push(symbols)
        spelled = "".join(word)
        return spelled if len(spelled) <= max_length else None


def _dyck(pairs: str) -> ProbabilisticGrammar:
    k = len(pairs) // 2
    kinds = [(pairs[2 * i], pairs[2 * i + 1]) for i in range(k)]
    return ProbabilisticGrammar(
        "S",
        {
            "S": (
                *((f"{o}E{c}S", 0.85 / k) for o, c in kinds),
                *((f"{o}E{c}", 0.15 / k) for o, c in kinds),
            ),
            "E": (("", 0.55), *((f"{o}E{c}E", 0.45 / k) for o, c in kinds)),
        },
    )


GRAMMARS: dict[str, ProbabilisticGrammar] = {
    "dyck1": _dyck("()"),
    "dyck2": _dyck("()[]"),
    "dyck3": _dyck("()[]{}"),
    "anbn": ProbabilisticGrammar("S", {"S": (("aSb", 0.95), ("ab", 0.05))}),
    "palindrome": ProbabilisticGrammar("S", {"S": (("aSa", 0.475), ("bSb", 0.475), ("$", 0.05))}),
    "json": ProbabilisticGrammar(
        "J",
        {
            "J": (
                ("{O}", 0.45),
                ("[A]", 0.45),
                ("n", 0.025),
                ("s", 0.025),
                ("{}", 0.025),
                ("[]", 0.025),
            ),
            "V": (
                ("n", 0.35),
                ("s", 0.35),
                ("{}", 0.05),
                ("[]", 0.05),
                ("{O}", 0.1),
                ("[A]", 0.1),
            ),
            "O": (("k:V", 0.25), ("k:V,O", 0.75)),
            "A": (("V", 0.25), ("V,A", 0.75)),
        },
    ),
    "latch": ProbabilisticGrammar(
        "O",
        {
            "O": (("0O", 0.5), ("1E", 0.5)),
            "E": (("", 0.04), ("0E", 0.48), ("1O", 0.48)),
        },
    ),
}
"""The sampling grammar of each language (the table in the module docstring)."""

# Which lengths a language has words of, to refuse an empty range at once.
_HAS_LENGTH: dict[str, Callable[[int], bool]] = {
    "dyck1": lambda n: n >= 2 and n % 2 == 0,
    "dyck2": lambda n: n >= 2 and n % 2 == 0,
    "dyck3": lambda n: n >= 2 and n % 2 == 0,
    "anbn": lambda n: n >= 2 and n % 2 == 0,
    "palindrome": lambda n: n >= 1 and n % 2 == 1,
    "json": lambda n: n >= 1,
    "latch": lambda n: n >= 1,
}


def sample_words(
    name: str,
    rng: np.random.Generator,
    n: int,
    min_length: int,
    max_length: int,
    *,
    max_attempts: int | None = None,
) -> list[str]:
    """``n`` words of language ``name``, each of length in [min_length, max_length].

    Words are drawn independently from ``GRAMMARS[name]`` (duplicates possible), and a
    draw outside the range is rejected whole. The same ``rng`` state gives the same words.

    Args:
        name: a language (``automata.LANGUAGES``).
        rng: the random generator; it is advanced.
        n: how many words, >= 0.
        min_length, max_length: the length range, 0 <= min_length <= max_length.
        max_attempts: draws allowed in all before giving up; default 2000 * n + 2000.

    Raises:
        UserError: (a ValueError) unknown ``name``.
        ValueError: a bad argument, or a range holding no word of the language (a^n b^n
            has only even lengths, for example).
        RuntimeError: ``max_attempts`` draws gave fewer than ``n`` words in range.
    """
    if not isinstance(name, str) or name not in GRAMMARS:
        raise UserError(f"unknown language {name!r}; the languages are {', '.join(GRAMMARS)}")
    check_generator("rng", rng)
    n = check_int("n", n, 0)
    min_length, max_length = check_int_range(("min_length", "max_length"), min_length, max_length)
    if not any(_HAS_LENGTH[name](k) for k in range(min_length, max_length + 1)):
        raise ValueError(f"{name} has no words of lengths {min_length} to {max_length}")
    if max_attempts is None:
        max_attempts = 2000 * n + 2000
    else:
        max_attempts = check_int("max_attempts", max_attempts, 1)
    grammar, longest = GRAMMARS[name], int(max_length)
    words: list[str] = []
    attempts = 0
    with Uniforms(rng) as uniforms:  # the draws of rng.random(), taken ahead
        while len(words) < n:
            if attempts >= max_attempts:
                raise RuntimeError(
                    f"{name}: {max_attempts} draws gave only {len(words)} of {n} words of "
                    f"lengths {min_length} to {max_length}; widen the range or raise "
                    "max_attempts"
                )
            attempts += 1
            uniforms.reserve(4 * longest + 64)  # the most one derivation draws
            word = grammar._derive(uniforms.next, longest)
            if word is not None and len(word) >= min_length:
                words.append(word)
    return words
