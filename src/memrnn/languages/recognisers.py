"""Direct membership tests for the paper's seven languages, written without the automata.

They are the oracle the LR(1)-automata of :mod:`memrnn.languages.automata` are tested
against, so each follows the language's own definition, with the automaton's conventions
where the definition leaves a choice:

- ``dyck1``/``dyck2``/``dyck3``: non-empty balanced words over ``()``, ``()[]`` and
  ``()[]{}`` (the automata reject the empty word: the stack ``#`` holds no S).
- ``anbn``: a^n b^n with n >= 1 (the paper's {ab, aabb, ...}; the empty word is rejected).
- ``palindrome``: w$reverse(w) for w over {a, b}, w = epsilon included ("$" is accepted).
- ``json``: the simplified JSON of Table 1, V -> {} | [] | {O} | [A] | n | s,
  O -> k:V | k:V,O, A -> V | V,A, with V the start symbol (a lone ``n`` is a word).
- ``latch``: words over {0, 1} with an odd number of ones, including words that begin
  with 1 (the automaton has the added rule (1, e, 1, S); see
  :mod:`memrnn.languages.automata`).

A word holding a symbol outside the language's alphabet is not in the language: the tests
return False rather than raise.

>>> recognise("dyck2", "([])[]"), recognise("dyck2", "([)]")
(True, False)
>>> in_json("{k:[n,n],k:s}"), in_json("{k:n,}")
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable

from memrnn.errors import UserError
from memrnn.validation import check_int

_BRACKETS = {1: {")": "("}, 2: {")": "(", "]": "["}, 3: {")": "(", "]": "[", "}": "{"}}


def _check(word: str) -> None:
    if not isinstance(word, str):
        raise TypeError(f"word: expected a string, got {word!r}")


def in_dyck(word: str, k: int) -> bool:
    """Whether ``word`` is a non-empty balanced word with k kinds of brackets (k = 1, 2, 3).

    Dyck-1 needs only a depth counter; with two or more kinds the open brackets must be
    remembered in order, so a list serves as their stack.
    """
    _check(word)
    check_int("k", k, 1, len(_BRACKETS))
    if not word:
        return False
    closing = _BRACKETS[k]
    opening = set(closing.values())
    if k == 1:
        depth = 0
        for symbol in word:
            if symbol == "(":
                depth += 1
            elif symbol == ")":
                depth -= 1
                if depth < 0:
                    return False
            else:
                return False
        return depth == 0
    open_brackets: list[str] = []
    for symbol in word:
        if symbol in opening:
            open_brackets.append(symbol)
        elif symbol in closing:
            if not open_brackets or open_brackets.pop() != closing[symbol]:
                return False
        else:
            return False
    return not open_brackets


def in_anbn(word: str) -> bool:
    """Whether ``word`` is a^n b^n for some n >= 1."""
    _check(word)
    n = len(word) // 2
    return n >= 1 and len(word) == 2 * n and word == "a" * n + "b" * n


def in_palindrome(word: str) -> bool:
    """Whether ``word`` is w$reverse(w) for some w over {a, b}."""
    _check(word)
    n = len(word) // 2
    left, middle, right = word[:n], word[n : n + 1], word[n + 1 :]
    return len(word) % 2 == 1 and middle == "$" and set(left) <= {"a", "b"} and right == left[::-1]


def in_latch(word: str) -> bool:
    """Whether ``word`` is over {0, 1} and has an odd number of ones."""
    _check(word)
    return set(word) <= {"0", "1"} and word.count("1") % 2 == 1


class _JsonParser:
    """Recursive descent over the simplified JSON grammar (see the module docstring)."""

    def __init__(self, word: str) -> None:
        self.word = word
        self.i = 0

    def peek(self) -> str | None:
        return self.word[self.i] if self.i < len(self.word) else None

    def eat(self, symbol: str) -> bool:
        if self.peek() == symbol:
            self.i += 1
            return True
        return False

    def value(self) -> bool:
        # V -> n | s | {} | {O} | [] | [A]
        if self.eat("n") or self.eat("s"):
            return True
        if self.eat("{"):
            return self.eat("}") or (self.members() and self.eat("}"))
        if self.eat("["):
            return self.eat("]") or (self.elements() and self.eat("]"))
        return False

    def members(self) -> bool:
        # O -> k:V | k:V,O, written as a loop over the commas
        while True:
            if not (self.eat("k") and self.eat(":") and self.value()):
                return False
            if not self.eat(","):
                return True

    def elements(self) -> bool:
        # A -> V | V,A
        while True:
            if not self.value():
                return False
            if not self.eat(","):
                return True


def in_json(word: str) -> bool:
    """Whether ``word`` is one value of the simplified JSON grammar, and nothing after it."""
    _check(word)
    parser = _JsonParser(word)
    try:
        return parser.value() and parser.i == len(word)
    except RecursionError:
        # Nesting deeper than Python's recursion limit: say so rather than answer wrongly.
        raise ValueError(
            f"word: nested too deeply ({len(word)} symbols) for the recursive parser"
        ) from None


_RECOGNISERS: dict[str, Callable[[str], bool]] = {
    "dyck1": lambda word: in_dyck(word, 1),
    "dyck2": lambda word: in_dyck(word, 2),
    "dyck3": lambda word: in_dyck(word, 3),
    "anbn": in_anbn,
    "palindrome": in_palindrome,
    "json": in_json,
    "latch": in_latch,
}


def recognise(name: str, word: str) -> bool:
    """Whether ``word`` is in the language ``name`` (the names of ``automata.LANGUAGES``).

    Raises:
        UserError: (a ValueError) ``name`` is not a language.
    """
    if not isinstance(name, str) or name not in _RECOGNISERS:
        raise UserError(f"unknown language {name!r}; the languages are {', '.join(_RECOGNISERS)}")
    return _RECOGNISERS[name](word)
