"""Drawing Dyck-(k,m) strings from the distribution of Hewitt et al. (2020), Appendix H.

Equation H.2 picks an action uniformly among the possible ones. Two readings of it:

- **At the empty stack, push and end have probability 1/2 each**, not 1/(k+1): Appendix H.1
  says "in the empty stack state, push <_i and end are possible. We sample uniformly at
  random from the possible actions. Conditioned on choosing the push <_i action, we sample
  uniformly at random from the open brackets" and Equation H.2 writes
  U({push <_i, end}); "push <_i" is one action whose bracket is drawn afterwards.
- **Rejection is computed, not repeated.** Strings outside the length range are rejected
  whole (Appendix H, Table 2). Only 6.5e-4 of all draws fall in the test range (m = 3 or 5),
  so :func:`sample_string` and the splits draw from the conditional law directly: at each
  step they weigh the actions of Equation H.2 by the exact probability that the walk can
  still end in range (:func:`~memrnn.languages.dyck.counting.push_probabilities`, computed
  once per range with Python integers), which gives each string exactly the probability
  that drawing and rejecting whole strings gives it. The brackets stay uniform.

>>> from memrnn.languages.dyck.tokens import to_text
>>> to_text(sample_string(np.random.default_rng(0), 2, 3, 5, 9), 2)
'[[()]]#'
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from memrnn.languages.dyck.counting import check_length_range, push_probabilities
from memrnn.languages.dyck.tokens import MAX_K, TOKEN_DTYPE
from memrnn.validation import check_generator, check_int


def walk(
    k: int, push: tuple[tuple[float, ...], ...], uniforms: Iterator[float], brackets: Iterator[int]
) -> list[int]:
    """One string: per step, push a uniform bracket with probability push[n][d], else pop
    the top's close (or end on the empty stack)."""
    stack: list[int] = []
    out: list[int] = []
    while True:
        if next(uniforms) < push[len(out)][len(stack)]:
            bracket = next(brackets)
            stack.append(bracket)
            out.append(bracket)
        elif stack:
            out.append(stack.pop() + k)
        else:
            out.append(2 * k)
            return out


def sample_string(
    rng: np.random.Generator, k: int, m: int, min_length: int, max_length: int
) -> np.ndarray:
    """One string of Appendix H's distribution given a length in [min_length, max_length].

    Equation H.2 picks an action uniformly among the possible ones: push or end on the empty
    stack, push or pop below depth m, pop at depth m; a push draws its bracket uniformly, a
    pop closes the top, end writes the end symbol. The string is drawn from this law
    conditioned on its length (end symbol included) lying in the range: the law of rejecting
    whole strings outside it, without drawing them (see the module docstring). It draws
    ``max_length`` uniforms and ``max_length`` brackets from ``rng`` whatever the string.

    Returns:
        The token ids, dtype ``TOKEN_DTYPE``, the last one the end symbol 2k.

    Raises:
        ValueError: a bad argument (k above ``MAX_K``, whose ids would not fit
            ``TOKEN_DTYPE``, included), a range that holds no odd length, or one too long
            to weigh (``push_probabilities``).
    """
    rng = check_generator("rng", rng)
    k, m = check_int("k", k, 1, MAX_K), check_int("m", m, 1)
    lo, hi = check_length_range(min_length, max_length)
    push = push_probabilities(m, lo, hi)
    uniforms = iter(rng.random(hi).tolist())
    brackets = iter(rng.integers(k, size=hi).tolist())
    return np.array(walk(k, push, uniforms, brackets), dtype=TOKEN_DTYPE)
