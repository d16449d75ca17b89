"""Formal languages, without torch.

From the reservoir stack machine paper (Paassen, Schulz, Hammer 2021): LR(1)-automata and
their parser (Definition 2, Algorithm 1; :mod:`memrnn.languages.lr1`), the paper's seven
automata (:mod:`memrnn.languages.automata`), direct membership tests written without them
(:mod:`memrnn.languages.recognisers`) and probabilistic context-free grammars that sample
their words (:mod:`memrnn.languages.pcfg`); these are exported here. Dyck-(k,m) of Hewitt et
al. (2020) is :mod:`memrnn.languages.dyck`; inversion transduction grammars are
:mod:`memrnn.languages.itg`, and the two of Grefenstette et al. (2015) are
:mod:`memrnn.languages.grammars`.
"""

from memrnn.languages.automata import LANGUAGES, automaton
from memrnn.languages.lr1 import (
    END,
    AutomatonError,
    LR1Automaton,
    ParseStep,
    ParseTrace,
    Rule,
    RuleLoopError,
    prefix_labels,
)
from memrnn.languages.pcfg import GRAMMARS, ProbabilisticGrammar, sample_words
from memrnn.languages.recognisers import recognise

__all__ = [
    "END",
    "GRAMMARS",
    "LANGUAGES",
    "AutomatonError",
    "LR1Automaton",
    "ParseStep",
    "ParseTrace",
    "ProbabilisticGrammar",
    "Rule",
    "RuleLoopError",
    "automaton",
    "prefix_labels",
    "recognise",
    "sample_words",
]
