"""LR(1)-automata (Definition 2) and Algorithm 1: the paper's walk-through, recorded actions,
prefix labels, validation and the loop guard."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memrnn.languages import (
    END,
    LANGUAGES,
    AutomatonError,
    LR1Automaton,
    Rule,
    RuleLoopError,
    automaton,
    prefix_labels,
)


def _s(stack: tuple[str, ...]) -> str:
    return "".join(stack)


# The paper's Equation 3, written out here rather than taken from automaton("anbn").
ANBN = LR1Automaton(
    {"S"}, {"a", "b"}, [Rule.of("aSb", None, 3, "S"), Rule.of("a", "b", 0, "S")], {"S"}
)


def test_anbn_walkthrough_stack_states() -> None:
    # Section 2.4: the stack states for "aabb" are eps, a, aa, aaS, aaSb, aS, aSb, S, S#.
    trace = ANBN.parse("aabb")
    states = [_s(trace.steps[0].stack_before)]
    for step in trace.steps:
        states += [_s(stack) for stack in step.stacks]
        states.append(_s(step.stack_after))
    assert states == ["", "a", "aa", "aaS", "aaSb", "aS", "aSb", "S", "S#"]
    assert trace.accepted
    assert trace.final_stack == ("S", "#")


def test_anbn_recorded_actions_by_hand() -> None:
    # "ab": at y=b the rule (a, b, 0, S) fires (pop 0, push S); at # (aSb, e, 3, S) fires.
    trace = automaton("anbn").parse("ab")
    assert [step.symbol for step in trace.steps] == ["a", "b", END]
    assert [step.position for step in trace.steps] == [0, 1, 2]
    assert trace.actions == ((), ((0, "S"),), ((3, "S"),))
    assert [str(r) for r in trace.steps[1].rules] == ["(a, b, 0, S)"]
    assert [str(r) for r in trace.steps[2].rules] == ["(aSb, ε, 3, S)"]
    assert [_s(step.stack_before) for step in trace.steps] == ["", "a", "aSb"]
    assert [[_s(s) for s in step.stacks] for step in trace.steps] == [[], ["aS"], ["S"]]
    assert [_s(step.stack_reduced) for step in trace.steps] == ["", "aS", "S"]
    assert [_s(step.stack_after) for step in trace.steps] == ["a", "aSb", "S#"]


def test_aabb_actions_by_hand() -> None:
    trace = automaton("anbn").parse("aabb")
    assert trace.actions == ((), (), ((0, "S"),), ((3, "S"),), ((3, "S"),))


def test_json_actions_by_hand() -> None:
    # "[n]": n is reduced to V once the next symbol arrives (an epsilon rule), V to A only
    # with lookahead "]", then [A] to V at the end symbol.
    trace = automaton("json").parse("[n]")
    assert trace.actions == ((), (), ((1, "V"), (1, "A")), ((3, "V"),))
    assert [[_s(s) for s in step.stacks] for step in trace.steps] == [
        [],
        [],
        ["[V", "[A"],
        ["V"],
    ]
    assert trace.accepted


def test_epsilon_rules_match_the_end_symbol_and_lookahead_rules_do_not() -> None:
    a = LR1Automaton({"S"}, {"a", "b"}, [Rule.of("a", "b", 1, "S")], {"S"})
    assert not a.accepts("a")  # the lookahead b never arrives; # does not match b
    eps = LR1Automaton({"S"}, {"a", "b"}, [Rule.of("a", None, 1, "S")], {"S"})
    assert eps.accepts("a")
    assert eps.parse("a").steps[-1].rules == (Rule.of("a", None, 1, "S"),)


def test_empty_suffix_rule_matches_every_stack() -> None:
    rule = Rule((), "a", 0, "T")
    assert rule.matches((), "a") and rule.matches(("T", "a"), "a")
    assert not rule.matches((), "b")
    # Once it matches it matches again: Algorithm 1 never leaves the loop of lines 4-7.
    a = LR1Automaton({"T"}, {"a", "b"}, [rule], {"T"}, max_reductions=10)
    assert not a.accepts("bb")
    with pytest.raises(RuleLoopError, match="position 1"):
        a.accepts("ba")


@pytest.mark.parametrize("name", LANGUAGES)
@given(data=st.data())
def test_trace_is_consistent(name: str, data: st.DataObject) -> None:
    a = automaton(name)
    word = data.draw(st.text(alphabet=sorted(a.terminals), max_size=20))
    trace = a.parse(word)
    assert trace.word == word
    assert len(trace.steps) == len(word) + 1
    assert [s.symbol for s in trace.steps] == [*word, END]
    assert trace.accepted == a.accepts(word)
    stack: tuple[str, ...] = ()
    for step in trace.steps:
        assert step.stack_before == stack
        assert len(step.stacks) == len(step.rules)
        for rule, after in zip(step.rules, step.stacks, strict=True):
            # the first matching rule in list order, as the rules read literally give it
            assert rule is next(r for r in a.rules if r.matches(stack, step.symbol))
            stack = (*stack[: len(stack) - rule.pop], rule.push)
            assert after == stack
        # no rule matches any more when the symbol is shifted
        assert not any(r.matches(stack, step.symbol) for r in a.rules)
        stack = (*stack, step.symbol)
        assert step.stack_after == stack
    assert trace.accepted == (len(stack) == 2 and stack[0] in a.accepting)


def test_prefix_labels_by_hand() -> None:
    assert prefix_labels(automaton("anbn"), "aabbab") == [0, 0, 0, 1, 0, 0]
    assert prefix_labels(automaton("dyck2"), "()[(])") == [0, 1, 0, 0, 0, 0]
    assert prefix_labels(automaton("dyck2"), "([])[]") == [0, 0, 0, 1, 0, 1]
    assert prefix_labels(automaton("latch"), "10110") == [1, 1, 0, 1, 1]
    assert prefix_labels(automaton("json"), "[n,n]") == [0, 0, 0, 0, 1]
    assert prefix_labels(automaton("palindrome"), "$") == [1]
    assert prefix_labels(automaton("anbn"), "") == []


@pytest.mark.parametrize("name", LANGUAGES)
@given(data=st.data())
def test_prefix_labels_match_accepts(name: str, data: st.DataObject) -> None:
    a = automaton(name)
    word = data.draw(st.text(alphabet=sorted(a.terminals), max_size=16))
    assert prefix_labels(a, word) == [int(a.accepts(word[: t + 1])) for t in range(len(word))]


def test_unknown_symbol_names_symbol_and_position() -> None:
    a = automaton("dyck1")
    with pytest.raises(ValueError, match=r"'x' at position 2"):
        a.parse("()x)")
    with pytest.raises(ValueError, match=r"'#' at position 0"):
        a.accepts("#")
    with pytest.raises(ValueError, match=r"'a' at position 1"):
        prefix_labels(a, "(a")
    with pytest.raises(ValueError, match="string"):
        a.parse(["(", ")"])  # type: ignore[arg-type]


def test_loop_guard() -> None:
    grows = LR1Automaton({"S"}, {"a"}, [Rule((), None, 0, "S")], {"S"}, max_reductions=50)
    with pytest.raises(
        RuleLoopError, match=r"position 0 \(symbol 'a'\): more than 50 applied.*\(ε, ε, 0, S\)"
    ):
        grows.accepts("a")
    cycle = LR1Automaton(
        {"A", "B"},
        {"a"},
        [Rule.of("A", None, 1, "B"), Rule.of("B", None, 1, "A"), Rule.of("a", None, 1, "A")],
        {"A"},
    )
    with pytest.raises(RuleLoopError, match=r"\(A, ε, 1, B\), \(B, ε, 1, A\)"):
        cycle.parse("a")
    assert issubclass(RuleLoopError, AutomatonError)


def test_loop_guard_allows_for_the_stack_height() -> None:
    # At "}" the six members of this object reduce in 1 + 1 + 5 = 7 steps, more than
    # max_reductions=5 but within 5 + 2 * (stack height).
    json = automaton("json")
    strict = LR1Automaton(
        json.nonterminals, json.terminals, json.rules, json.accepting, max_reductions=5
    )
    word = "{" + ",".join(["k:n"] * 6) + "}"
    assert max(len(step.rules) for step in json.parse(word).steps) == 7
    assert strict.accepts(word)


def test_pop_below_the_stack() -> None:
    a = LR1Automaton({"S"}, {"a"}, [Rule.of("a", None, 3, "S")], {"S"})
    with pytest.raises(AutomatonError, match=r"pops 3 symbols from a stack of 1"):
        a.accepts("a")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"terminals": {"a", "S"}}, "disjoint.*'S'"),
        ({"accepting": {"T"}}, r"accepting: \['T'\]"),
        ({"terminals": {"ab"}}, "not one character"),
        ({"terminals": {"a", "#"}}, "end symbol"),
        ({"nonterminals": {"S", "#"}}, "end symbol"),
        ({"terminals": "ab"}, "the string 'ab'"),
        ({"nonterminals": {"S", ""}}, "non-empty strings"),
        ({"rules": [Rule.of("ax", None, 1, "S")]}, r"rules\[0\].*\['x'\]"),
        ({"rules": [Rule.of("a", "x", 1, "S")]}, r"lookahead 'x' is not a terminal"),
        ({"rules": [Rule.of("a", "#", 1, "S")]}, r"lookahead '#' is not a terminal"),
        ({"rules": [Rule.of("a", None, 1, "a")]}, r"pushes 'a', not a nonterminal"),
        ({"rules": [("a", None, 1, "S")]}, r"rules\[0\]: expected a Rule"),
        ({"rules": "aS"}, "sequence of Rule"),
        ({"max_reductions": 0}, "max_reductions"),
    ],
)
def test_definition_is_validated(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "nonterminals": {"S"},
        "terminals": {"a"},
        "rules": [Rule.of("a", None, 1, "S")],
        "accepting": {"S"},
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        LR1Automaton(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("aSb", None, 3, "S"), "tuple of symbols"),
        ((("a", ""), None, 3, "S"), r"suffix\[1\]"),
        ((("a",), "", 3, "S"), "lookahead"),
        ((("a",), None, -1, "S"), "pop"),
        ((("a",), None, True, "S"), "pop"),
        ((("a",), None, 1, ""), "push"),
    ],
)
def test_rule_is_validated(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rule(*args)  # type: ignore[arg-type]


def test_rule_matches_and_prints() -> None:
    rule = Rule.of("aSb", None, 3, "S")
    assert rule.matches(("a", "a", "S", "b"), "b")
    assert not rule.matches(("a", "S"), "b")
    assert not rule.matches(("S", "b"), "#")
    look = Rule.of("a", "b", 0, "S")
    assert look.matches(("a",), "b") and not look.matches(("a",), "a")
    assert str(Rule((), None, 0, "S")) == "(ε, ε, 0, S)"
    assert "(aSb, ε, 3, S)" in repr(automaton("anbn"))
