"""Shortest derivations: the fixed point, terminals and None counting one, and grammars
with a nonterminal that never finishes."""

from __future__ import annotations

import pytest

from memrnn.languages.derivations import shortest_lengths


def test_shortest_lengths_of_a_small_grammar() -> None:
    # S -> a S b | T T ; T -> c | (empty) ; U -> S None
    rules = {"S": ["aSb", "TT"], "T": ["c", ""], "U": [["S", None, "x"]]}
    assert shortest_lengths(rules, "rules", "word") == {"S": 0, "T": 0, "U": 2}


def test_the_fixed_point_follows_chains_in_any_order() -> None:
    rules = {"A": ["B"], "B": ["C"], "C": ["ccc", "D"], "D": ["dd"]}
    assert shortest_lengths(rules, "rules", "word") == {"A": 2, "B": 2, "C": 2, "D": 2}


def test_a_nonterminal_that_never_finishes_is_named() -> None:
    with pytest.raises(ValueError, match=r"productions: \['A', 'B'\] derive no finite word"):
        shortest_lengths({"S": ["a"], "A": ["aB"], "B": ["bA"]}, "productions", "word")
