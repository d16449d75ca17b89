"""LR(1)-automata and their parser, as defined by Paassen, Schulz and Hammer (2021).

*Reservoir Stack Machines*, Definition 2: an LR(1)-automaton is a 4-tuple
A = (Phi, Sigma, R, F) of nonterminals Phi, terminals Sigma (disjoint), an ordered list of
rules R, each a 4-tuple (s, x, j, A) with a stack suffix s over Phi and Sigma, a lookahead x
in Sigma or epsilon, a pop count j >= 0 and a nonterminal A to push, and accepting
nonterminals F, a subset of Phi.

Algorithm 1 parses a word w_1 ... w_T: for each y in w_1, ..., w_T, # it applies the first
rule in R whose suffix s is a suffix of the stack and whose lookahead x is y or epsilon
(pop j symbols, push A), repeatedly, until no rule matches; then it pushes y. The word is
accepted iff the final stack is A# with A in F.

:class:`ParseTrace` records, for every input position including the end symbol, the rules
applied before the symbol is shifted and the stack after each: the pop and push actions a
reservoir stack machine is taught with (section 3.2, Algorithm 4).

The paper's seven automata are :mod:`memrnn.languages.automata`. Equation 3's, for
a^n b^n:

>>> a = LR1Automaton(
...     {"S"}, {"a", "b"}, [Rule.of("aSb", None, 3, "S"), Rule.of("a", "b", 0, "S")], {"S"}
... )
>>> a.accepts("aabb"), a.accepts("aab")
(True, False)
>>> ["".join(step.stack_after) for step in a.parse("aabb").steps]
['a', 'aa', 'aaSb', 'aSb', 'S#']
>>> prefix_labels(a, "abab")
[0, 1, 0, 0]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memrnn.validation import check_int

END = "#"
"""The end symbol Algorithm 1 processes after the word; no automaton may use it."""

EPSILON = "\u03b5"  # how an epsilon lookahead prints


class AutomatonError(RuntimeError):
    """An automaton's rules did something Algorithm 1 cannot do (pop below the stack)."""


class RuleLoopError(AutomatonError):
    """An automaton's rules kept matching at one input symbol without stopping."""


@dataclass(frozen=True)
class Rule:
    """One rule (s, x, j, A) of Definition 2.

    Attributes:
        suffix: s, the symbols the top of the stack must end with (bottom to top); may be
            empty, which matches every stack.
        lookahead: x, the input symbol the rule needs, or None for epsilon (any symbol,
            the end symbol ``#`` included).
        pop: j, how many symbols to pop (j >= 0).
        push: A, the nonterminal to push after popping.
    """

    suffix: tuple[str, ...]
    lookahead: str | None
    pop: int
    push: str

    def __post_init__(self) -> None:
        if not isinstance(self.suffix, tuple):
            raise ValueError(
                f"suffix: expected a tuple of symbols, got {self.suffix!r} "
                "(Rule.of('aSb', ...) splits a string of one-character symbols)"
            )
        for i, symbol in enumerate(self.suffix):
            if not isinstance(symbol, str) or not symbol:
                raise ValueError(f"suffix[{i}]: expected a non-empty string, got {symbol!r}")
        if self.lookahead is not None and (
            not isinstance(self.lookahead, str) or not self.lookahead
        ):
            raise ValueError(
                f"lookahead: expected a non-empty string or None, got {self.lookahead!r}"
            )
        check_int("pop", self.pop, 0)
        if not isinstance(self.push, str) or not self.push:
            raise ValueError(f"push: expected a non-empty string, got {self.push!r}")

    @classmethod
    def of(cls, suffix: str, lookahead: str | None, pop: int, push: str) -> Rule:
        """A rule whose suffix is written as a string of one-character symbols.

        >>> Rule.of("aSb", None, 3, "S")
        Rule(suffix=('a', 'S', 'b'), lookahead=None, pop=3, push='S')
        """
        if not isinstance(suffix, str):
            raise ValueError(f"suffix: expected a string, got {suffix!r}")
        return cls(tuple(suffix), lookahead, pop, push)

    def matches(self, stack: Sequence[str], y: str) -> bool:
        """Whether the rule applies to ``stack`` (bottom to top) with input symbol ``y``."""
        if self.lookahead is not None and self.lookahead != y:
            return False
        n = len(self.suffix)
        return n <= len(stack) and tuple(stack[len(stack) - n :]) == self.suffix

    def __str__(self) -> str:
        """The paper's notation: ``(aSb, ε, 3, S)``."""
        suffix = "".join(self.suffix) or EPSILON
        x = EPSILON if self.lookahead is None else self.lookahead
        return f"({suffix}, {x}, {self.pop}, {self.push})"


@dataclass(frozen=True)
class ParseStep:
    """What Algorithm 1 did with one input symbol (one pass of its lines 4-8).

    Attributes:
        position: the symbol's index in the word, from 0; ``len(word)`` for the end symbol.
        symbol: the input symbol y (``#`` at the end).
        stack_before: the stack when y arrived (bottom to top).
        rules: the rules applied, in order, before y was shifted.
        stacks: the stack after each rule in ``rules``.
        stack_after: the stack after shifting y.
    """

    position: int
    symbol: str
    stack_before: tuple[str, ...]
    rules: tuple[Rule, ...]
    stacks: tuple[tuple[str, ...], ...]
    stack_after: tuple[str, ...]

    @property
    def actions(self) -> tuple[tuple[int, str], ...]:
        """The (pop count, pushed nonterminal) of each rule applied, in order."""
        return tuple((rule.pop, rule.push) for rule in self.rules)

    @property
    def stack_reduced(self) -> tuple[str, ...]:
        """The stack once no rule matched, just before y was shifted."""
        return self.stacks[-1] if self.stacks else self.stack_before


@dataclass(frozen=True)
class ParseTrace:
    """A run of Algorithm 1: one :class:`ParseStep` per input symbol and the end symbol.

    Attributes:
        word: the word parsed.
        steps: ``len(word) + 1`` steps; the last processes the end symbol ``#``.
        accepted: whether the final stack is A# with A accepting.
    """

    word: str
    steps: tuple[ParseStep, ...]
    accepted: bool

    @property
    def final_stack(self) -> tuple[str, ...]:
        """The stack after the end symbol was shifted."""
        return self.steps[-1].stack_after

    @property
    def actions(self) -> tuple[tuple[tuple[int, str], ...], ...]:
        """Per step, the (pop, push) actions applied before shifting its symbol."""
        return tuple(step.actions for step in self.steps)


def _symbol_set(value: Iterable[str], name: str) -> frozenset[str]:
    if isinstance(value, str):
        raise ValueError(
            f"{name}: expected a collection of symbols, got the string {value!r} "
            f"(pass set({value!r}) for its characters)"
        )
    try:
        symbols = frozenset(value)
    except TypeError as exc:
        raise ValueError(f"{name}: expected a collection of symbols, got {value!r}") from exc
    for symbol in sorted(symbols, key=repr):
        if not isinstance(symbol, str) or not symbol:
            raise ValueError(f"{name}: symbols must be non-empty strings, got {symbol!r}")
        if symbol == END:
            raise ValueError(f"{name}: {END!r} is the end symbol and cannot be a symbol")
    return symbols


class LR1Automaton:
    """An LR(1)-automaton (Phi, Sigma, R, F) of Definition 2, with Algorithm 1 as its parser.

    Args:
        nonterminals: Phi, a collection of non-empty strings.
        terminals: Sigma, a collection of one-character strings (words are strings), disjoint
            from Phi.
        rules: R, an ordered sequence of :class:`Rule`; every suffix symbol in Phi or Sigma,
            every lookahead in Sigma (or None), every pushed symbol in Phi.
        accepting: F, a subset of Phi.
        max_reductions: the guard against rules that never stop matching: at one input
            symbol, at most ``max_reductions + 2 * h`` rules may apply, h the stack height
            when the symbol arrived (the paper's automata apply at most h + 3).

    Neither Phi nor Sigma may contain the end symbol ``#``. A bad argument raises a
    ``ValueError`` that names it.
    """

    def __init__(
        self,
        nonterminals: Iterable[str],
        terminals: Iterable[str],
        rules: Sequence[Rule],
        accepting: Iterable[str],
        *,
        max_reductions: int = 1000,
    ) -> None:
        phi = _symbol_set(nonterminals, "nonterminals")
        sigma = _symbol_set(terminals, "terminals")
        for symbol in sorted(sigma):
            if len(symbol) != 1:
                raise ValueError(
                    f"terminals: {symbol!r} is not one character (words are strings of "
                    "one-character terminals)"
                )
        shared = phi & sigma
        if shared:
            raise ValueError(
                f"nonterminals and terminals must be disjoint; both contain {sorted(shared)}"
            )
        final = _symbol_set(accepting, "accepting")
        if not final <= phi:
            raise ValueError(f"accepting: {sorted(final - phi)} are not nonterminals {sorted(phi)}")
        if isinstance(rules, str) or not isinstance(rules, Sequence):
            raise ValueError(f"rules: expected a sequence of Rule, got {rules!r}")
        symbols = phi | sigma
        for i, rule in enumerate(rules):
            if not isinstance(rule, Rule):
                raise ValueError(f"rules[{i}]: expected a Rule, got {rule!r}")
            unknown = [s for s in rule.suffix if s not in symbols]
            if unknown:
                raise ValueError(
                    f"rules[{i}] {rule}: suffix symbols {unknown} are neither nonterminals "
                    "nor terminals"
                )
            if rule.lookahead is not None and rule.lookahead not in sigma:
                raise ValueError(
                    f"rules[{i}] {rule}: lookahead {rule.lookahead!r} is not a terminal"
                )
            if rule.push not in phi:
                raise ValueError(f"rules[{i}] {rule}: pushes {rule.push!r}, not a nonterminal")
        check_int("max_reductions", max_reductions, 1)
        self.nonterminals: frozenset[str] = phi
        self.terminals: frozenset[str] = sigma
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.accepting: frozenset[str] = final
        self.max_reductions = max_reductions
        # Which rule matches depends only on the top symbols a suffix can reach and on y,
        # so each such pair is looked up once (parsing is most of the time spent drawing
        # data sets for the stack machines).
        self._reach = max((len(rule.suffix) for rule in self.rules), default=0)
        self._matched: dict[tuple[tuple[str, ...], str], Rule | None] = {}

    def __repr__(self) -> str:
        rules = ", ".join(str(rule) for rule in self.rules)
        return (
            f"LR1Automaton(nonterminals={sorted(self.nonterminals)}, "
            f"terminals={sorted(self.terminals)}, rules=[{rules}], "
            f"accepting={sorted(self.accepting)})"
        )

    def parse(self, word: str) -> ParseTrace:
        """Run Algorithm 1 on ``word`` and record every step.

        Raises:
            ValueError: ``word`` is not a string, or holds a symbol that is not a terminal.
            RuleLoopError: the rules kept matching at one input symbol (see the class).
            AutomatonError: a rule popped more symbols than the stack held.
        """
        self._check_word(word)
        stack: list[str] = []
        steps: list[ParseStep] = []
        for position, y in enumerate([*word, END]):
            before = tuple(stack)
            applied: list[Rule] = []
            stacks: list[tuple[str, ...]] = []
            self._reduce(stack, y, position, applied, stacks)
            stack.append(y)
            steps.append(
                ParseStep(position, y, before, tuple(applied), tuple(stacks), tuple(stack))
            )
        return ParseTrace(word, tuple(steps), self._accepting_stack(stack))

    def accepts(self, word: str) -> bool:
        """Algorithm 1's output for ``word``, without recording a trace."""
        self._check_word(word)
        stack: list[str] = []
        for position, y in enumerate(word):
            self._reduce(stack, y, position, None, None)
            stack.append(y)
        return self._finish(stack, len(word))

    def _finish(self, stack: list[str], position: int) -> bool:
        """Process the end symbol on ``stack`` (changed in place) and read off the result."""
        self._reduce(stack, END, position, None, None)
        stack.append(END)
        return self._accepting_stack(stack)

    def _accepting_stack(self, stack: Sequence[str]) -> bool:
        return len(stack) == 2 and stack[0] in self.accepting and stack[1] == END

    def _check_word(self, word: str) -> None:
        if not isinstance(word, str):
            raise ValueError(f"word: expected a string of terminals, got {word!r}")
        for position, symbol in enumerate(word):
            if symbol not in self.terminals:
                raise ValueError(
                    f"word: symbol {symbol!r} at position {position} (from 0) is not a "
                    f"terminal; terminals are {sorted(self.terminals)}"
                )

    def _match(self, stack: Sequence[str], y: str) -> Rule | None:
        # The paper's exists-quantifier: the first matching rule in list order.
        key = (tuple(stack[max(0, len(stack) - self._reach) :]), y)
        if key not in self._matched:
            self._matched[key] = next((rule for rule in self.rules if rule.matches(stack, y)), None)
        return self._matched[key]

    def _reduce(
        self,
        stack: list[str],
        y: str,
        position: int,
        applied: list[Rule] | None,
        stacks: list[tuple[str, ...]] | None,
    ) -> None:
        """Lines 4-7 of Algorithm 1 on ``stack`` (in place), recording into the lists given."""
        limit = self.max_reductions + 2 * len(stack)
        recent: list[Rule] = []
        count = 0
        while (rule := self._match(stack, y)) is not None:
            count += 1
            if count > limit:
                loop = ", ".join(str(r) for r in recent[-6:])
                raise RuleLoopError(
                    f"rules kept matching at position {position} (symbol {y!r}): more than "
                    f"{limit} applied without stopping; the last were {loop}"
                )
            if rule.pop > len(stack):
                raise AutomatonError(
                    f"rule {rule} at position {position} (symbol {y!r}) pops {rule.pop} "
                    f"symbols from a stack of {len(stack)}"
                )
            del stack[len(stack) - rule.pop :]
            stack.append(rule.push)
            recent.append(rule)
            if len(recent) > 64:
                del recent[:32]
            if applied is not None and stacks is not None:
                applied.append(rule)
                stacks.append(tuple(stack))


def prefix_labels(automaton: LR1Automaton, word: str) -> list[int]:
    """The desired outputs y_1 ... y_T of section 4: y_t = 1 iff w_1 ... w_t is accepted.

    ``len(word)`` labels, one per prefix of length 1 to T (the empty prefix has none). The
    stack after shifting w_t depends on w_1 ... w_t alone (the lookaheads it saw were
    w_2 ... w_t), so each prefix is finished from the running stack with the end symbol
    instead of being parsed again.

    Note: Algorithm 2 emits T + 1 outputs, y_t read *before* w_t is shifted; its y_{t+1}
    is about the prefix w_1 ... w_t but is read after reductions with lookahead w_{t+1},
    not ``#``. These labels are membership of the prefixes, by definition.

    >>> dyck1 = LR1Automaton(
    ...     {"S"},
    ...     {"(", ")"},
    ...     [Rule.of("SS", None, 2, "S"), Rule.of("(S)", None, 3, "S"), Rule.of("(", ")", 0, "S")],
    ...     {"S"},
    ... )
    >>> prefix_labels(dyck1, "()(())")
    [0, 1, 0, 0, 0, 1]
    """
    automaton._check_word(word)
    stack: list[str] = []
    labels: list[int] = []
    for position, y in enumerate(word):
        automaton._reduce(stack, y, position, None, None)
        stack.append(y)
        labels.append(int(automaton._finish(list(stack), position + 1)))
    return labels
