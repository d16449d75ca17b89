"""The paper's seven automata: Table 1's rules and example words, hand-made words per
language, the latch's added rule, and unknown names."""

from __future__ import annotations

import pytest

from memrnn.errors import UserError
from memrnn.languages import END, LANGUAGES, LR1Automaton, Rule, automaton

HAND_WORDS = {
    "dyck1": (["()", "()()", "(())", "(()())", "((()))()"], ["", "(", ")", ")(", "(()", "())("]),
    "dyck2": (
        ["()[]", "[()]", "([])[]", "[[]]()", "[]"],
        ["", "(]", "[)", "([)]", "[(])", "(("],
    ),
    "dyck3": (
        ["(){}", "{[()]}", "{}[]()", "({}[])", "{{}}"],
        ["", "{)", "{[}]", "({)}", "}{", "{"],
    ),
    "anbn": (["ab", "aabb", "aaabbb"], ["", "a", "b", "ba", "aab", "abb", "abab", "aabbab"]),
    "palindrome": (
        ["$", "a$a", "ab$ba", "abb$bba", "bab$bab"],
        ["", "a", "ab$ab", "a$", "$a", "a$$a", "$$", "aa$a", "ab$bab"],
    ),
    "json": (
        ["n", "s", "{}", "[]", "[n]", "{k:n}", "[n,s,{}]", "{k:[n,n],k:s}", "[[[]]]"],
        ["", "k", "{k}", "{k:}", "{k:n,}", "[n,]", "[,n]", "{n:n}", "nn", "[n}", "{k:n]", "[k:n]"],
    ),
    "latch": (
        ["1", "01", "10", "0100", "111", "10101"],
        ["", "0", "00", "11", "0110", "1001"],
    ),
}


@pytest.mark.parametrize("name", LANGUAGES)
def test_hand_made_words(name: str) -> None:
    accept, reject = HAND_WORDS[name]
    a = automaton(name)
    for word in accept:
        assert a.accepts(word), word
        assert a.parse(word).accepted, word
    for word in reject:
        assert not a.accepts(word), word
        assert not a.parse(word).accepted, word


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("dyck1", "()()"),
        ("dyck2", "()[]"),
        ("dyck3", "(){}"),
        ("anbn", "aaabbb"),
        ("palindrome", "ab$ba"),
        ("json", "{k:[n,n],k:s}"),
    ],
)
def test_table1_example_words(name: str, word: str) -> None:
    trace = automaton(name).parse(word)
    assert trace.accepted
    accepting = "V" if name == "json" else "S"
    assert trace.final_stack == (accepting, END)


def test_table1_rule_sets() -> None:
    rules = {name: [str(r) for r in automaton(name).rules] for name in LANGUAGES}
    assert rules["dyck1"] == ["(SS, ε, 2, S)", "((S), ε, 3, S)", "((, ), 0, S)"]
    assert rules["dyck3"] == [
        "(SS, ε, 2, S)",
        "((S), ε, 3, S)",
        "([S], ε, 3, S)",
        "({S}, ε, 3, S)",
        "((, ), 0, S)",
        "([, ], 0, S)",
        "({, }, 0, S)",
    ]
    assert rules["anbn"] == ["(aSb, ε, 3, S)", "(a, b, 0, S)"]
    assert rules["palindrome"] == ["(aSa, ε, 3, S)", "(bSb, ε, 3, S)", "($, ε, 1, S)"]
    assert rules["json"] == [
        "({}, ε, 2, V)",
        "([], ε, 2, V)",
        "({O}, ε, 3, V)",
        "([A], ε, 3, V)",
        "(n, ε, 1, V)",
        "(s, ε, 1, V)",
        "(k:V,O, ε, 5, O)",
        "(k:V, }, 3, O)",
        "(V,A, ε, 3, A)",
        "(V, ], 1, A)",
    ]
    assert rules["latch"] == [
        "(S0, ε, 2, S)",
        "(S1, ε, 2, A)",
        "(A0, ε, 2, A)",
        "(A1, ε, 2, S)",
        "(0, ε, 1, A)",
        "(1, ε, 1, S)",
    ]
    assert automaton("json").accepting == {"V"}
    assert all(automaton(n).accepting == {"S"} for n in LANGUAGES if n != "json")


def _printed_latch(*extra: Rule, first: bool = False) -> LR1Automaton:
    printed = [
        Rule.of("S0", None, 2, "S"),
        Rule.of("S1", None, 2, "A"),
        Rule.of("A0", None, 2, "A"),
        Rule.of("A1", None, 2, "S"),
        Rule.of("0", None, 1, "A"),
    ]
    rules = [*extra, *printed] if first else [*printed, *extra]
    return LR1Automaton({"S", "A"}, {"0", "1"}, rules, {"S"})


def test_latch_convention() -> None:
    # The rules as printed never reduce a leading 1: "1" and "10" (one 1 each) are rejected.
    printed = _printed_latch()
    assert not printed.accepts("1")
    assert not printed.accepts("10")
    assert printed.parse("10").final_stack == ("1", "A", END)  # the 1 is stuck
    assert printed.accepts("01") and printed.accepts("0100")
    # Our choice: (1, e, 1, S) appended last; it accepts every word with an odd number of 1s.
    ours = automaton("latch")
    assert ours.rules[-1] == Rule.of("1", None, 1, "S")
    assert ours.accepts("1") and ours.accepts("10") and ours.accepts("111")
    assert _printed_latch(Rule.of("1", None, 1, "S")).rules == ours.rules


def test_first_matching_rule_wins() -> None:
    # Put first, (1, e, 1, S) also matches the 1 of S1 and so wins over (S1, e, 2, A):
    # "111" ends as SSS# instead of S#.
    early = _printed_latch(Rule.of("1", None, 1, "S"), first=True)
    assert not early.accepts("111")
    assert automaton("latch").accepts("111")


def test_unknown_automaton_lists_names() -> None:
    with pytest.raises(UserError, match="dyck1, dyck2, dyck3, anbn, palindrome, json, latch"):
        automaton("dyck4")
