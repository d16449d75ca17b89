"""The seven LR(1)-automata of Paassen, Schulz and Hammer (2021), *Reservoir Stack Machines*.

The languages of the paper's experiments, as automata of Definition 2 that the parser of
:mod:`memrnn.languages.lr1` (Algorithm 1) runs; :func:`automaton` builds one by name.

``dyck1``, ``dyck2``, ``dyck3``, ``anbn``, ``palindrome``, ``json``
    Table 1, in the table's top-to-bottom order, accepting {S} (first five) or {V}
    (json). Table 1 is typeset text whose separators are ambiguous; the readings taken:

    - a^n b^n: the second rule is printed "(a, b, epsilon, S)"; epsilon in the pop slot is a
      slip: Equation 3 gives (a, b, 0, S), used here.
    - Dyck: "((, ), 0, S)" is suffix "(", lookahead ")", pop 0, push S; likewise for "[" and
      "{". The table's blank rows only align the columns.
    - json: "(k : V, O, epsilon, 5, O)" is the five-symbol suffix ``k:V,O`` (the comma is the
      terminal ",", consistent with pop 5); "(k : V, }, 3, O)" is suffix ``k:V`` with
      lookahead "}"; "(V, A, epsilon, 3, A)" is the suffix ``V,A``; "(V, ], 1, A)" is suffix
      ``V`` with lookahead "]". The grammar these rules reduce is
      V -> {} | [] | {O} | [A] | n | s, O -> k:V | k:V,O, A -> V | V,A.
    - palindrome: Table 1 lists (aSa), (bSb), ($); Equation 4 lists ($), (aSa), (bSb). No two
      of these rules can match the same stack (their suffixes end in different symbols), so
      the order changes no parse; the table's order is used.

``latch``
    The rules of section 4, (S0, e, 2, S), (S1, e, 2, A), (A0, e, 2, A), (A1, e, 2, S),
    (0, e, 1, A), accepting {S}, **plus (1, e, 1, S) appended last**. As printed, nothing
    reduces a 1 at the bottom of the stack, so the rules reject every word that begins with
    1 ("1" among them, though it has an odd number of ones). With the added rule the
    automaton accepts exactly the words with an odd number of ones, the language section 4
    describes. It must come last: placed before (S1, e, 2, A) it would match the 1 of S1.

>>> a = automaton("anbn")
>>> a.accepts("aabb"), a.accepts("aab")
(True, False)
>>> [str(rule) for rule in a.rules]
['(aSb, ε, 3, S)', '(a, b, 0, S)']
"""

from __future__ import annotations

from memrnn.errors import UserError
from memrnn.languages.lr1 import LR1Automaton, Rule


def _rules(*rules: tuple[str, str | None, int, str]) -> tuple[Rule, ...]:
    return tuple(Rule.of(*rule) for rule in rules)


# Table 1, column by column, top to bottom (see the module docstring for the readings).
_DYCK_REDUCE = {"(": "(S)", "[": "[S]", "{": "{S}"}
_DYCK_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _dyck(opening: str) -> tuple[Rule, ...]:
    return _rules(
        ("SS", None, 2, "S"),
        *((_DYCK_REDUCE[o], None, 3, "S") for o in opening),
        *((o, _DYCK_CLOSE[o], 0, "S") for o in opening),
    )


_AUTOMATA: dict[str, tuple[str, str, tuple[Rule, ...], str]] = {
    # name: (nonterminals, terminals, rules, accepting)
    "dyck1": ("S", "()", _dyck("("), "S"),
    "dyck2": ("S", "()[]", _dyck("(["), "S"),
    "dyck3": ("S", "()[]{}", _dyck("([{"), "S"),
    "anbn": ("S", "ab", _rules(("aSb", None, 3, "S"), ("a", "b", 0, "S")), "S"),
    "palindrome": (
        "S",
        "ab$",
        _rules(("aSa", None, 3, "S"), ("bSb", None, 3, "S"), ("$", None, 1, "S")),
        "S",
    ),
    "json": (
        "VOA",
        "{}[],:nsk",
        _rules(
            ("{}", None, 2, "V"),
            ("[]", None, 2, "V"),
            ("{O}", None, 3, "V"),
            ("[A]", None, 3, "V"),
            ("n", None, 1, "V"),
            ("s", None, 1, "V"),
            ("k:V,O", None, 5, "O"),
            ("k:V", "}", 3, "O"),
            ("V,A", None, 3, "A"),
            ("V", "]", 1, "A"),
        ),
        "V",
    ),
    "latch": (
        "SA",
        "01",
        _rules(
            ("S0", None, 2, "S"),
            ("S1", None, 2, "A"),
            ("A0", None, 2, "A"),
            ("A1", None, 2, "S"),
            ("0", None, 1, "A"),
            ("1", None, 1, "S"),  # added: see the module docstring
        ),
        "S",
    ),
}

LANGUAGES: tuple[str, ...] = tuple(_AUTOMATA)
"""The names :func:`automaton` knows, in the paper's order."""


def automaton(name: str) -> LR1Automaton:
    """The LR(1)-automaton of the paper's language ``name`` (one of :data:`LANGUAGES`).

    Raises:
        UserError: (a ValueError) ``name`` is not one of them.
    """
    if not isinstance(name, str) or name not in _AUTOMATA:
        raise UserError(f"unknown language {name!r}; the languages are {', '.join(LANGUAGES)}")
    nonterminals, terminals, rules, accepting = _AUTOMATA[name]
    return LR1Automaton(set(nonterminals), set(terminals), rules, set(accepting))
