"""Properties of the Dyck-(k,m) sampler of Hewitt et al. (2020), Appendix H, over random
languages, length ranges and seeds:

- every sample is a Dyck-(k,m) word by Definition 1 read literally (balanced, depth at
  most m, one end symbol, last), of a length in the range, in ``TOKEN_DTYPE``, and the
  same seed gives the same word;
- a bad k or m (not an int >= 1, a bool, a float, k too large for the token dtype) or a
  bad length range (negative, reversed, without an odd length) raises a ValueError
  naming the argument; nothing else is raised.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.languages.dyck import TOKEN_DTYPE, sample_string
from memrnn.languages.dyck.tokens import MAX_K
from tests.languages.dyck.helpers import direct

CASES = settings(max_examples=50, deadline=None)


@st.composite
def ranges(draw: st.DrawFn) -> tuple[int, int]:
    """(min_length, max_length) holding an odd length."""
    lo = draw(st.integers(0, 40))
    return lo, draw(st.integers(lo | 1, (lo | 1) + 40))


@CASES
@given(k=st.integers(1, 6), m=st.integers(1, 6), lengths=ranges(), seed=st.integers(0, 2**32 - 1))
def test_every_sample_is_a_dyck_word_in_range(
    k: int, m: int, lengths: tuple[int, int], seed: int
) -> None:
    word = sample_string(np.random.default_rng(seed), k, m, *lengths)
    assert word.dtype == TOKEN_DTYPE
    assert direct(word.tolist(), k, m)
    assert lengths[0] <= len(word) <= lengths[1] and len(word) % 2 == 1
    assert np.array_equal(word, sample_string(np.random.default_rng(seed), k, m, *lengths))


bad_count = st.one_of(
    st.integers(-(10**6), 0),
    st.booleans(),
    st.floats(allow_nan=True),
    st.integers(MAX_K + 1, 2**70),
    st.none(),
    st.text(max_size=2),
)


@CASES
@given(name=st.sampled_from(["k", "m"]), bad=bad_count)
def test_a_bad_k_or_m_is_named(name: str, bad: Any) -> None:
    args: dict[str, Any] = {"k": 2, "m": 3, name: bad}
    if name == "m" and isinstance(bad, int) and not isinstance(bad, bool) and bad > 0:
        return  # a large m is a language, not a mistake (its tables are tested apart)
    with pytest.raises(ValueError, match=rf"^{name}: expected an int"):
        sample_string(np.random.default_rng(0), args["k"], args["m"], 1, 9)


@CASES
@given(lo=st.one_of(st.integers(-50, 60), st.floats(0, 9)), hi=st.integers(-50, 60))
def test_a_bad_length_range_is_named(lo: Any, hi: int) -> None:
    good = isinstance(lo, int) and 0 <= lo <= hi and (lo | 1) <= hi
    if good:
        assert len(sample_string(np.random.default_rng(0), 2, 2, lo, hi)) <= hi
        return
    with pytest.raises(ValueError, match=r"^(min_length|max_length)"):
        sample_string(np.random.default_rng(0), 2, 2, lo, hi)
