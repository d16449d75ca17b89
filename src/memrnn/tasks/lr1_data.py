"""Data sets from LR(1) automata for the reservoir stack machine (Paassen et al. 2021).

Each word becomes one-hot input vectors over the automaton's terminals and nonterminals
(the paper's Sigma and Phi in one space), and the stack behaviour that Algorithm 1 shows
for it: per step the (pop, push) actions of the rules applied, shift always, and the
output 1 exactly when the reduced stack is a single accepting nonterminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memrnn.languages.lr1 import LR1Automaton
from memrnn.tasks.stack_teacher import StackTeacher


@dataclass(frozen=True)
class LR1Example:
    """One word as the RSM sees it.

    Attributes:
        word: the word.
        inputs: (T, n) one-hot rows, n = terminals + nonterminals.
        actions: T + 1 sequences of (pop count, nonterminal index) pairs.
        shift: (T + 1,) all ones: every symbol is shifted.
        outputs: (T + 1, 1) 1 where the stack, reduced before the step's symbol is
            shifted, is one accepting nonterminal; the last row is the word's acceptance.
    """

    word: str
    inputs: np.ndarray
    actions: Sequence[Sequence[tuple[int, int]]]
    shift: np.ndarray
    outputs: np.ndarray

    @property
    def teacher(self) -> StackTeacher:
        """The stack machines' teacher for the word."""
        return StackTeacher(self.actions, self.shift, self.outputs)


class LR1Coding:
    """One-hot codes for an automaton's symbols: terminals first, then nonterminals."""

    def __init__(self, automaton: LR1Automaton) -> None:
        self.automaton = automaton
        self.terminals = sorted(automaton.terminals)
        self.nonterminals = sorted(automaton.nonterminals)
        symbols = self.terminals + self.nonterminals
        self.index = {symbol: i for i, symbol in enumerate(symbols)}
        self.width = len(symbols)

    def nonterminal_codes(self) -> np.ndarray:
        """(K, n): the vector pushed for each nonterminal index."""
        eye = np.eye(self.width)
        return np.array([eye[self.index[a]] for a in self.nonterminals])

    def example(self, word: str) -> LR1Example:
        """The inputs and the teacher's stack behaviour for ``word`` (Algorithm 1)."""
        trace = self.automaton.parse(word)
        inputs = np.zeros((len(word), self.width))
        for t, symbol in enumerate(word):
            inputs[t, self.index[symbol]] = 1.0
        actions = [
            [(pop, self.nonterminals.index(push)) for pop, push in step.actions]
            for step in trace.steps
        ]
        accepting = self.automaton.accepting
        outputs = np.array(
            [
                [float(len(s.stack_reduced) == 1 and s.stack_reduced[0] in accepting)]
                for s in trace.steps
            ]
        )
        return LR1Example(word, inputs, actions, np.ones(len(word) + 1), outputs)
