"""Dyck-(k,m), the bounded bracket languages of Hewitt, Hahn, Ganguli, Liang and Manning (2020).

*RNNs can generate bounded hierarchical languages with optimal memory*.
Definition 1: Dyck-(k,m) holds the strings of Dyck-k (balanced brackets of k types) whose
number of unclosed brackets never exceeds m, each followed by the end symbol omega, which
appears once, last.

- :mod:`~memrnn.languages.dyck.tokens`: the token ids (opens ``0 .. k-1``, closes
  ``k .. 2k-1``, end ``2k``) and a text form for k <= 4.
- :mod:`~memrnn.languages.dyck.dfa`: the DFA of Appendix B, and membership tests.
- :mod:`~memrnn.languages.dyck.counting`: how many strings each length has, exactly.
- :mod:`~memrnn.languages.dyck.sampler`: strings of Appendix H's distribution.
- :mod:`~memrnn.languages.dyck.splits`: the training, development and test sets of
  Appendix H.1, with Table 2's length ranges.

>>> dfa = DyckDFA(2, 2)
>>> dfa.num_states, dfa.accepts(from_text("([])#", 2)), count_strings(2, 2, 5)
(9, True, 8)
"""

from memrnn.languages.dyck.counting import count_strings, prefix_counts
from memrnn.languages.dyck.dfa import (
    ACCEPT,
    REJECT,
    DyckDFA,
    State,
    Terminal,
    allowed_next,
    is_dyck,
)
from memrnn.languages.dyck.sampler import sample_string
from memrnn.languages.dyck.splits import (
    SPLITS_FORMAT,
    DyckSplits,
    DyckStrings,
    SplitParams,
    length_ranges,
    make_splits,
    sample_splits,
    split_params,
    splits_file_name,
    splits_from_arrays,
    splits_meta,
    splits_to_arrays,
)
from memrnn.languages.dyck.tokens import TOKEN_DTYPE, from_text, to_text

__all__ = [
    "ACCEPT",
    "REJECT",
    "SPLITS_FORMAT",
    "TOKEN_DTYPE",
    "DyckDFA",
    "DyckSplits",
    "DyckStrings",
    "SplitParams",
    "State",
    "Terminal",
    "allowed_next",
    "count_strings",
    "from_text",
    "is_dyck",
    "length_ranges",
    "make_splits",
    "prefix_counts",
    "sample_splits",
    "sample_string",
    "split_params",
    "splits_file_name",
    "splits_from_arrays",
    "splits_meta",
    "splits_to_arrays",
    "to_text",
]
