"""Properties of the constructions of Hewitt et al. (2020) over random small languages:

- for random k and m, every construction reads a random Dyck-(k,m) word and gives one
  distribution per prefix (T + 1 rows summing to 1, finite), in which exactly the
  tokens the DFA allows next have probability above 1e-6 (its generating property);
- ``check_size`` accepts a construction exactly when its weights fit the limit, and a
  refusal names k, m, the units, the weights and the limit; ``build`` refuses it
  before allocating anything;
- an id outside 0 .. 2k raises a ValueError naming ``tokens`` and the id.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.constructions import KINDS, build, check_size, theorem_units, weight_count
from memrnn.languages.dyck import DyckDFA, is_dyck, sample_string

CASES = settings(max_examples=40, deadline=None)


@st.composite
def languages(draw: st.DrawFn) -> tuple[str, int, int]:
    kind = draw(st.sampled_from(KINDS))
    k = draw(st.integers(2 if kind.endswith("log") else 1, 4))
    return kind, k, draw(st.integers(1, 3))


@CASES
@given(language=languages(), seed=st.integers(0, 2**32 - 1))
def test_a_construction_allows_exactly_the_next_tokens_of_a_dyck_word(
    language: tuple[str, int, int], seed: int
) -> None:
    kind, k, m = language
    word = sample_string(np.random.default_rng(seed), k, m, 1, 15)
    assert is_dyck(word, k, m)
    probs = build(kind, k, m)(torch.as_tensor(word, dtype=torch.long)[None])[0]
    assert probs.shape == (len(word) + 1, 2 * k + 1) and bool(probs.isfinite().all())
    torch.testing.assert_close(probs.sum(1), torch.ones(len(word) + 1))
    dfa, state = DyckDFA(k, m), DyckDFA(k, m).start
    for t in range(len(word)):
        np.testing.assert_array_equal(probs[t].numpy() > 1e-6, dfa.allowed(state))
        state = dfa.step(state, int(word[t]))


@CASES
@given(
    kind=st.sampled_from(KINDS),
    k=st.integers(2, 10**6),
    m=st.integers(1, 40),
    limit=st.integers(1, 2**40),
)
def test_the_size_check_accepts_exactly_what_fits(kind: str, k: int, m: int, limit: int) -> None:
    if kind == "srnn-dfa" and m * np.log2(k) > 200:
        needed = None  # astronomically many: too slow to count exactly, always refused
    else:
        needed = weight_count(kind, k, m)
    if needed is not None and needed <= limit:
        check_size(kind, k, m, limit)
        return
    message = rf"^k, m: {kind} for Dyck-\(k={k}, m={m}\) needs .* hidden units and .* float32"
    with pytest.raises(ValueError, match=message + rf".*max_weights = {limit:,}"):
        build(kind, k, m, max_weights=limit)


@CASES
@given(language=languages(), data=st.data())
def test_an_id_outside_the_tokens_is_named(
    language: tuple[str, int, int], data: st.DataObject
) -> None:
    kind, k, m = language
    model = build(kind, k, m)
    assert model.hidden_size == theorem_units(kind, k, m)
    bad = data.draw(st.one_of(st.integers(2 * k + 1, 2 * k + 100), st.integers(-100, -1)))
    tokens = [0] * data.draw(st.integers(0, 4)) + [bad]
    message = f"tokens: ids must lie in 0 .. {2 * k} (a vocabulary of {2 * k + 1}), found {bad}"
    with pytest.raises(ValueError, match=re.escape(message)):
        model(torch.tensor([tokens]))
