"""Dyck-(k,m), the bounded bracket languages of Hewitt, Hahn, Ganguli, Liang and Manning (2020).

*RNNs can generate bounded hierarchical languages with optimal memory*.
Definition 1: Dyck-(k,m) holds the strings of Dyck-k (balanced brackets of k types) whose
number of unclosed brackets never exceeds m, each followed by the end symbol omega, which
appears once, last. Appendix B defines the same language by a DFA (:class:`DyckDFA`);
Appendix H defines the distribution the experiments sample from (:func:`sample_string`) and
the data sets (:func:`make_splits`).

Tokens: the open brackets are ids ``0 .. k-1``, the close brackets ``k .. 2k-1`` (``k + i``
closes ``i``) and the end symbol is ``2k``. For k <= 4 there is a readable text form
(:func:`to_text`, :func:`from_text`): opens ``([{<``, closes ``)]}>``, end ``#``.

Readings of the seed this module takes:

- **Length counts the end symbol.** Section 3.1: "We denote an arbitrary string as
  w_{1:T} in Sigma* omega, where T is the string length", and Table 2's training range
  starts at 1, the lone end symbol. So every length is odd.
- **At the empty stack, push and end have probability 1/2 each**, not 1/(k+1): Appendix H.1
  says "in the empty stack state, push <_i and end are possible. We sample uniformly at
  random from the possible actions. Conditioned on choosing the push <_i action, we sample
  uniformly at random from the open brackets" and Equation H.2 writes
  U({push <_i, end}); "push <_i" is one action whose bracket is drawn afterwards.
- **Rejection is computed, not repeated.** Strings outside the length range are rejected
  whole (Appendix H, Table 2). Only 6.5e-4 of all draws fall in the test range (m = 3 or 5),
  so :func:`sample_string` and :func:`make_splits` draw from the conditional law directly:
  at each step they weigh the actions of Equation H.2 by the exact probability that the walk
  can still end in range (computed once per range with Python integers), which gives each
  string exactly the probability that drawing and rejecting whole strings gives it. The
  brackets stay uniform.
- **Length ranges are Table 2's**, which gives no formula (the text only asks that the
  longest training strings reach the full stack and return about three times), so
  :func:`length_ranges` knows m = 3 and m = 5 only.
- **The DFA's accept state goes to reject** on any further token; the seed leaves those
  transitions undefined because omega can only come last.

>>> dfa = DyckDFA(2, 2)
>>> dfa.num_states, dfa.accepts(from_text("([])#", 2)), is_dyck(from_text("((()))#", 1), 1, 2)
(9, True, False)
>>> count_strings(2, 2, 5)
8
>>> to_text(sample_string(np.random.default_rng(0), 2, 3, 5, 9), 2)
'[[()]]#'
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memrnn.checks import is_int
from memrnn.errors import UserError
from memrnn.io import load_arrays, save_arrays

TOKEN_DTYPE = np.int32
"""The dtype of sampled and stored token arrays."""

TEXT_OPENS = "([{<"
TEXT_CLOSES = ")]}>"
TEXT_END = "#"


class Terminal(enum.Enum):
    """The two DFA states that are not stacks."""

    REJECT = "reject"
    ACCEPT = "accept"


REJECT = Terminal.REJECT
ACCEPT = Terminal.ACCEPT

State = tuple[int, ...] | Terminal
"""A DFA state: a stack of open-bracket ids (bottom first, at most m), REJECT or ACCEPT."""


def _check_int(value: object, name: str, least: int) -> int:
    if not is_int(value) or value < least:  # type: ignore[operator]
        raise ValueError(f"{name}: expected an int >= {least}, got {value!r}")
    return int(value)  # type: ignore[call-overload]


def _check_tokens(tokens: Sequence[int] | np.ndarray, k: int, name: str) -> list[int]:
    """``tokens`` as a list of Python ints, each a token id of Dyck-(k, .)."""
    if isinstance(tokens, (str, bytes)):
        raise ValueError(
            f"{name}: expected a sequence of token ids, got the string {tokens!r} "
            "(from_text turns text into ids)"
        )
    array = np.asarray(tokens)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise ValueError(f"{name}: expected a 1-d sequence of int token ids, got {tokens!r}")
    bad = np.flatnonzero((array < 0) | (array > 2 * k))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name}[{i}]: token {array[i]} is not an id of Dyck-({k},m) (0 to {2 * k})"
        )
    return array.tolist()


class DyckDFA:
    """The DFA D_{m,k} of Appendix B, with states coded as integers for fast search.

    States (B.1): a stack of open brackets ``(i_1, ..., i_d)``, bottom first, of depth
    0 <= d <= m, plus the reject state and the accept state. There are
    sum_{d=0..m} k^d stacks, so ``num_states`` = sum_{d=0..m} k^d + 2. The seed counts
    "k^{m+1} + 1", which is this number for k = 2 (its Figure 4 draws Dyck-(2,2), 9 states),
    more than it for k > 2 and less for k = 1.

    Transitions (B.1-B.5): the empty stack goes to accept on the end symbol; a stack of depth
    d < m pushes any open bracket; a non-empty stack pops on the close bracket of its top;
    everything else goes to reject, which stays there. Accept goes to reject on any token.

    Codes (:meth:`encode`): a stack ``(i_1, ..., i_d)`` is the integer whose bijective
    base-k digits are ``i_1 + 1, ..., i_d + 1`` (the empty stack is 0), so pushing ``i``
    maps c to c*k + i + 1 and every stack of depth d has a code in
    [sum_{e<d} k^e, sum_{e<=d} k^e). Reject is ``num_stacks`` and accept ``num_stacks + 1``.

    Args:
        k: the number of bracket types, >= 1.
        m: the bound on the depth, >= 1.

    Attributes:
        k, m: as given.
        num_stacks: how many stack states (depths 0 to m).
        num_states: ``num_stacks + 2``.
        end: the token id of the end symbol, 2k.
        vocab_size: 2k + 1.
        reject_code, accept_code: the codes of REJECT and ACCEPT.

    Raises:
        ValueError: ``k`` or ``m`` is not an int >= 1.
    """

    def __init__(self, k: int, m: int) -> None:
        self.k = _check_int(k, "k", 1)
        self.m = _check_int(m, "m", 1)
        self.num_stacks = sum(self.k**d for d in range(self.m + 1))
        self.num_states = self.num_stacks + 2
        self.end = 2 * self.k
        self.vocab_size = 2 * self.k + 1
        self.reject_code = self.num_stacks
        self.accept_code = self.num_stacks + 1
        # Codes from here up are the stacks of depth m, the full ones.
        self._full_from = self.num_stacks - self.k**self.m

    def __repr__(self) -> str:
        return f"DyckDFA(k={self.k}, m={self.m})"

    @property
    def start(self) -> State:
        """The start state q_0, the empty stack."""
        return ()

    def encode(self, state: State) -> int:
        """The integer code of ``state`` (see the class docstring).

        Raises:
            ValueError: ``state`` is not a state of this DFA.
        """
        if state is REJECT:
            return self.reject_code
        if state is ACCEPT:
            return self.accept_code
        if not isinstance(state, tuple) or len(state) > self.m:
            raise ValueError(
                f"state: expected REJECT, ACCEPT or a tuple of at most {self.m} open-bracket "
                f"ids, got {state!r}"
            )
        code = 0
        for i in state:
            if not is_int(i) or not 0 <= i < self.k:
                raise ValueError(
                    f"state: {i!r} in {state!r} is not an open-bracket id 0..{self.k - 1}"
                )
            code = code * self.k + int(i) + 1
        return code

    def decode(self, code: int) -> State:
        """The state whose code is ``code``.

        Raises:
            ValueError: ``code`` is not in ``range(num_states)``.
        """
        code = self._check_code(code)
        if code == self.reject_code:
            return REJECT
        if code == self.accept_code:
            return ACCEPT
        stack: list[int] = []
        while code:
            code, digit = divmod(code - 1, self.k)
            stack.append(digit)
        return tuple(reversed(stack))

    def step(self, state: State, token: int) -> State:
        """delta(state, token).

        Raises:
            ValueError: ``state`` is not a state, or ``token`` not an id in 0..2k.
        """
        return self.decode(self.step_code(self.encode(state), token))

    def step_code(self, code: int, token: int) -> int:
        """delta on codes: the code of the state ``token`` leads to from state ``code``.

        Raises:
            ValueError: ``code`` is not in ``range(num_states)``, or ``token`` not in 0..2k.
        """
        code = self._check_code(code)
        if not is_int(token) or not 0 <= token <= self.end:
            raise ValueError(f"token: expected an int token id 0..{self.end}, got {token!r}")
        return self._step(code, int(token))

    def run(self, tokens: Sequence[int] | np.ndarray) -> State:
        """The state after reading ``tokens`` from the start state.

        Raises:
            ValueError: ``tokens`` holds something that is not a token id.
        """
        code, _ = self._run(_check_tokens(tokens, self.k, "tokens"))
        return self.decode(code)

    def accepts(self, tokens: Sequence[int] | np.ndarray) -> bool:
        """Whether ``tokens`` is a string of Dyck-(k,m) (end symbol included).

        Raises:
            ValueError: ``tokens`` holds something that is not a token id.
        """
        code, _ = self._run(_check_tokens(tokens, self.k, "tokens"))
        return code == self.accept_code

    def allowed(self, state: State) -> np.ndarray:
        """The tokens after which a string in ``state`` can still become a Dyck-(k,m) string.

        A bool mask of length 2k+1: every open bracket while the depth is below m, the close
        bracket of the top while the stack is not empty, the end symbol on the empty stack;
        nothing in the reject or the accept state. These are exactly the tokens that do not
        lead to reject, since every stack can be closed and ended.

        Raises:
            ValueError: ``state`` is not a state of this DFA.
        """
        self.encode(state)  # validates
        mask = np.zeros(self.vocab_size, dtype=bool)
        if isinstance(state, Terminal):
            return mask
        mask[: self.k] = len(state) < self.m
        if state:
            mask[self.k + state[-1]] = True
        else:
            mask[self.end] = True
        return mask

    def _check_code(self, code: int) -> int:
        if not is_int(code) or not 0 <= code < self.num_states:
            raise ValueError(f"code: expected an int in 0..{self.num_states - 1}, got {code!r}")
        return int(code)

    def _step(self, code: int, token: int) -> int:
        if code >= self.reject_code:  # reject stays; nothing may follow the end symbol
            return self.reject_code
        k = self.k
        if token < k:
            return code * k + token + 1 if code < self._full_from else self.reject_code
        if token < 2 * k:
            if code and (code - 1) % k == token - k:
                return (code - 1) // k
            return self.reject_code
        return self.accept_code if code == 0 else self.reject_code

    def _run(self, tokens: list[int]) -> tuple[int, int | None]:
        """The final code and the index of the token that led to reject (None if none)."""
        code = 0
        for t, token in enumerate(tokens):
            code = self._step(code, token)
            if code == self.reject_code:
                return code, t
        return code, None


def is_dyck(tokens: Sequence[int] | np.ndarray, k: int, m: int) -> bool:
    """Whether ``tokens`` is a string of Dyck-(k,m), end symbol included.

    Raises:
        ValueError: a bad ``k`` or ``m``, or ``tokens`` holds something that is not a token id.
    """
    return DyckDFA(k, m).accepts(tokens)


def allowed_next(prefix: Sequence[int] | np.ndarray, k: int, m: int) -> np.ndarray:
    """The mask of :meth:`DyckDFA.allowed` for the state after ``prefix``.

    A complete string (ending in the end symbol) allows nothing: the mask is all False.

    Raises:
        ValueError: a bad ``k`` or ``m``; ``prefix`` holds something that is not a token id,
            or is not a prefix of any Dyck-(k,m) string.
    """
    dfa = DyckDFA(k, m)
    code, bad = dfa._run(_check_tokens(prefix, dfa.k, "prefix"))
    if bad is not None:
        raise ValueError(
            f"prefix[{bad}]: token {prefix[bad]} cannot follow the tokens before it, so this "
            f"is not a prefix of any Dyck-({k},{m}) string"
        )
    return dfa.allowed(dfa.decode(code))


def to_text(tokens: Sequence[int] | np.ndarray, k: int) -> str:
    """Token ids as text, for k <= 4: opens ``([{<``, closes ``)]}>``, end ``#``.

    Raises:
        ValueError: ``k`` is not 1 to 4, or ``tokens`` holds something that is not a token id.
    """
    k = _check_int(k, "k", 1)
    if k > len(TEXT_OPENS):
        raise ValueError(f"k: the text form has {len(TEXT_OPENS)} bracket types, got k={k}")
    alphabet = TEXT_OPENS[:k] + TEXT_CLOSES[:k] + TEXT_END
    return "".join(alphabet[t] for t in _check_tokens(tokens, k, "tokens"))


def from_text(text: str, k: int) -> list[int]:
    """The token ids of ``text`` written as :func:`to_text` writes them.

    Raises:
        ValueError: ``k`` is not 1 to 4, or ``text`` holds a character that is not a symbol.
    """
    k = _check_int(k, "k", 1)
    if k > len(TEXT_OPENS):
        raise ValueError(f"k: the text form has {len(TEXT_OPENS)} bracket types, got k={k}")
    if not isinstance(text, str):
        raise ValueError(f"text: expected a string, got {text!r}")
    alphabet = TEXT_OPENS[:k] + TEXT_CLOSES[:k] + TEXT_END
    for i, char in enumerate(text):
        if char not in alphabet:
            raise ValueError(f"text[{i}]: {char!r} is not one of {alphabet!r}")
    return [alphabet.index(char) for char in text]


def prefix_counts(k: int, m: int, n: int) -> list[int]:
    """How many bracket strings of ``n`` tokens are prefixes of Dyck-(k,m) strings, by depth.

    Entry d counts those that leave d brackets unclosed (0 <= d <= m). Exact Python ints.

    Raises:
        ValueError: ``k`` or ``m`` is not an int >= 1, or ``n`` not an int >= 0.
    """
    k, m, n = _check_int(k, "k", 1), _check_int(m, "m", 1), _check_int(n, "n", 0)
    counts = [1] + [0] * m
    for _ in range(n):
        new = [0] * (m + 1)
        for d, c in enumerate(counts):
            if d < m:
                new[d + 1] += c * k  # any of k open brackets
            if d:
                new[d - 1] += c  # only the close of the top
        counts = new
    return counts


def count_strings(k: int, m: int, length: int) -> int:
    """How many Dyck-(k,m) strings have exactly ``length`` tokens, the end symbol included.

    Zero for even lengths and for 0. Exact (Python ints).

    Raises:
        ValueError: ``k`` or ``m`` is not an int >= 1, or ``length`` not an int >= 0.
    """
    length = _check_int(length, "length", 0)
    if length == 0:
        return 0
    return prefix_counts(k, m, length - 1)[0]


_LENGTH_RANGES = {3: ((1, 84), (85, 168)), 5: ((1, 180), (181, 360))}


def length_ranges(m: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Table 2's (train, test) length ranges, each (min, max) inclusive, for depth bound m.

    Lengths count the end symbol. The seed gives only m = 3 and m = 5.

    Raises:
        ValueError: ``m`` is not 3 or 5.
    """
    if not is_int(m) or int(m) not in _LENGTH_RANGES:
        raise ValueError(
            f"m: the seed's Table 2 gives length ranges for m = 3 and m = 5 only, got {m!r}; "
            "pass the lengths explicitly"
        )
    return _LENGTH_RANGES[int(m)]


def _check_range(
    min_length: object, max_length: object, names: tuple[str, str] = ("min_length", "max_length")
) -> tuple[int, int]:
    """A (min, max) length range that holds some string: it must hold an odd length."""
    lo = _check_int(min_length, names[0], 0)
    hi = _check_int(max_length, names[1], 1)
    if lo > hi:
        raise ValueError(f"{names[0]} {lo} is greater than {names[1]} {hi}")
    if (lo | 1) > hi:
        raise ValueError(
            f"{names[0]}, {names[1]}: no Dyck-(k,m) string has a length from {lo} to {hi} "
            "(lengths are odd: bracket pairs plus the end symbol)"
        )
    return lo, hi


@functools.lru_cache(maxsize=64)
def _push_probabilities(m: int, lo: int, hi: int) -> tuple[tuple[float, ...], ...]:
    """p[n][d]: the probability of a push after n tokens at depth d, given the final length
    lies in [lo, hi] (the alternative is end at d = 0, pop otherwise).

    w[n][d] = 2^(hi - n) * P(the length ends in range | n tokens, depth d): an integer,
    since every step of Equation H.2 has probability 1/2 or 1.
    """
    w = [[0] * (m + 1) for _ in range(hi + 1)]  # w[hi] = 0: the end symbol must still come
    for n in range(hi - 1, -1, -1):
        below = w[n + 1]
        w[n][0] = (1 << (hi - n - 1) if lo <= n + 1 else 0) + below[1]
        for d in range(1, m):
            w[n][d] = below[d + 1] + below[d - 1]
        w[n][m] = 2 * below[m - 1]
    # Exact integers divide to correctly rounded floats: 0 and 1 stay exact, so a branch of
    # probability 0 is never taken.
    return tuple(
        tuple(
            (w[n + 1][d + 1] / w[n][d] if w[n][d] else 0.0) if d < m else 0.0 for d in range(m + 1)
        )
        for n in range(hi)
    )


def _walk(
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
        ValueError: a bad argument, or a range that holds no odd length.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng: expected a numpy.random.Generator, got {rng!r}")
    k, m = _check_int(k, "k", 1), _check_int(m, "m", 1)
    lo, hi = _check_range(min_length, max_length)
    push = _push_probabilities(m, lo, hi)
    uniforms = iter(rng.random(hi).tolist())
    brackets = iter(rng.integers(k, size=hi).tolist())
    return np.array(_walk(k, push, uniforms, brackets), dtype=TOKEN_DTYPE)


@dataclass(frozen=True, eq=False)
class DyckStrings:
    """Strings stored flat: string i is ``tokens[offsets[i]:offsets[i + 1]]``.

    Attributes:
        tokens: every string's token ids, one after the other (1-d, ``TOKEN_DTYPE``).
        offsets: the start of each string and the end of the last (1-d, int64, from 0).
    """

    tokens: np.ndarray
    offsets: np.ndarray

    def __post_init__(self) -> None:
        if self.tokens.ndim != 1 or self.offsets.ndim != 1 or self.offsets.size == 0:
            raise ValueError("tokens and offsets: expected 1-d arrays, offsets not empty")
        if self.offsets[0] != 0 or self.offsets[-1] != self.tokens.size:
            raise ValueError(
                f"offsets: expected to run from 0 to {self.tokens.size}, "
                f"got {self.offsets[0]} to {self.offsets[-1]}"
            )
        if np.any(np.diff(self.offsets) < 1):
            raise ValueError("offsets: every string must hold at least one token")

    def __len__(self) -> int:
        return self.offsets.size - 1

    def __getitem__(self, i: int) -> np.ndarray:
        """String i (a view into ``tokens``)."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"string {i} of {len(self)}")
        i %= len(self)
        return self.tokens[self.offsets[i] : self.offsets[i + 1]]

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[i] for i in range(len(self)))

    @property
    def num_tokens(self) -> int:
        """Tokens in all strings, end symbols included."""
        return int(self.tokens.size)

    @property
    def lengths(self) -> np.ndarray:
        """Each string's length, end symbol included."""
        return np.diff(self.offsets)


@dataclass(frozen=True)
class SplitParams:
    """What determines a set of splits (and is recorded in its file).

    Attributes:
        k, m: the language.
        seed: the seed of all three splits.
        train_tokens, dev_tokens, test_tokens: the least number of tokens each split holds.
        train_lengths, test_lengths: (min, max) lengths; dev uses ``train_lengths``.
    """

    k: int
    m: int
    seed: int
    train_tokens: int
    dev_tokens: int
    test_tokens: int
    train_lengths: tuple[int, int]
    test_lengths: tuple[int, int]


@dataclass(frozen=True, eq=False)
class DyckSplits:
    """Training, development and test strings of Dyck-(k,m) (Appendix H.1)."""

    params: SplitParams
    train: DyckStrings
    dev: DyckStrings
    test: DyckStrings


_BLOCK = 1 << 14  # random numbers drawn at a time while filling a split


def _endless(draw: Callable[[], np.ndarray]) -> Iterator[Any]:
    while True:
        yield from draw().tolist()


def _sample_tokens(
    rng: np.random.Generator, k: int, m: int, lengths: tuple[int, int], tokens: int
) -> DyckStrings:
    """Strings drawn until they hold at least ``tokens`` tokens (the last may overshoot)."""
    push = _push_probabilities(m, *lengths)
    uniforms = _endless(lambda: rng.random(_BLOCK))
    brackets = _endless(lambda: rng.integers(k, size=_BLOCK))
    flat: list[int] = []
    offsets = [0]
    while len(flat) < tokens:
        flat.extend(_walk(k, push, uniforms, brackets))
        offsets.append(len(flat))
    return DyckStrings(np.array(flat, dtype=TOKEN_DTYPE), np.array(offsets, dtype=np.int64))


def _split_params(
    k: int,
    m: int,
    seed: int,
    train_tokens: int,
    dev_tokens: int,
    test_tokens: int,
    train_lengths: tuple[int, int] | None,
    test_lengths: tuple[int, int] | None,
) -> SplitParams:
    k, m = _check_int(k, "k", 1), _check_int(m, "m", 1)
    if train_lengths is None or test_lengths is None:
        default_train, default_test = length_ranges(m)
        train_lengths = default_train if train_lengths is None else train_lengths
        test_lengths = default_test if test_lengths is None else test_lengths
    ranges = []
    for name, value in (("train_lengths", train_lengths), ("test_lengths", test_lengths)):
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise ValueError(f"{name}: expected (min_length, max_length), got {value!r}")
        ranges.append(_check_range(*value, names=(f"{name}[0]", f"{name}[1]")))
    return SplitParams(
        k=k,
        m=m,
        seed=_check_int(seed, "seed", 0),
        train_tokens=_check_int(train_tokens, "train_tokens", 0),
        dev_tokens=_check_int(dev_tokens, "dev_tokens", 0),
        test_tokens=_check_int(test_tokens, "test_tokens", 0),
        train_lengths=ranges[0],
        test_lengths=ranges[1],
    )


def _make(params: SplitParams) -> DyckSplits:
    # One stream per split: dev and test do not depend on the training size (the seed uses
    # identical dev and test sets for every training size), and a smaller training set is
    # the start of a larger one.
    train, dev, test = (
        np.random.default_rng(s) for s in np.random.SeedSequence(params.seed).spawn(3)
    )
    k, m = params.k, params.m
    return DyckSplits(
        params=params,
        train=_sample_tokens(train, k, m, params.train_lengths, params.train_tokens),
        dev=_sample_tokens(dev, k, m, params.train_lengths, params.dev_tokens),
        test=_sample_tokens(test, k, m, params.test_lengths, params.test_tokens),
    )


def make_splits(
    k: int,
    m: int,
    seed: int,
    train_tokens: int,
    dev_tokens: int = 20_000,
    test_tokens: int = 300_000,
    *,
    train_lengths: tuple[int, int] | None = None,
    test_lengths: tuple[int, int] | None = None,
) -> DyckSplits:
    """Training, development and test sets of Dyck-(k,m), sized in tokens (Appendix H.1).

    Each split is filled with :func:`sample_string`'s law until it holds at least the
    requested number of tokens (end symbols included); the last string may overshoot, by
    less than the range's maximum length. Train and dev use the training lengths, test the
    test lengths. Each split has its own random stream spawned from ``seed``, so the same
    seed gives the same dev and test sets for every training size, and the training set for
    fewer tokens is the first strings of the one for more.

    Args:
        k, m: the language.
        seed: an int >= 0.
        train_tokens, dev_tokens, test_tokens: ints >= 0 (0 gives an empty split).
        train_lengths, test_lengths: (min, max) lengths; default :func:`length_ranges`.

    Raises:
        ValueError: a bad argument; m other than 3 or 5 without both length ranges.
    """
    return _make(
        _split_params(
            k, m, seed, train_tokens, dev_tokens, test_tokens, train_lengths, test_lengths
        )
    )


_FORMAT = 1  # bump when the sampler or the file layout changes
_SPLITS = ("train", "dev", "test")


def _meta(params: SplitParams) -> dict[str, Any]:
    return {"format": _FORMAT, "language": "dyck", **dataclasses.asdict(params)}


def _save(path: Path, splits: DyckSplits) -> None:
    arrays: dict[str, np.ndarray] = {}
    for name in _SPLITS:
        strings: DyckStrings = getattr(splits, name)
        arrays[f"{name}_tokens"] = strings.tokens
        arrays[f"{name}_offsets"] = strings.offsets
    save_arrays(path, _meta(splits.params), arrays)


def _load(path: Path, params: SplitParams) -> DyckSplits:
    arrays = load_arrays(path, _meta(params), "splits")
    try:
        loaded = {
            name: DyckStrings(
                arrays[f"{name}_tokens"].astype(TOKEN_DTYPE, copy=False),
                arrays[f"{name}_offsets"].astype(np.int64, copy=False),
            )
            for name in _SPLITS
        }
        for name, strings in loaded.items():
            if np.any((strings.tokens < 0) | (strings.tokens > 2 * params.k)):
                raise ValueError(f"{name}: token ids outside 0..{2 * params.k}")
    except (KeyError, ValueError) as exc:
        raise UserError(f"{path}: damaged splits ({exc}); delete it to make them again") from exc
    return DyckSplits(params=params, **loaded)


def load_or_make_splits(
    folder: str | os.PathLike[str],
    k: int,
    m: int,
    seed: int,
    train_tokens: int,
    dev_tokens: int = 20_000,
    test_tokens: int = 300_000,
    *,
    train_lengths: tuple[int, int] | None = None,
    test_lengths: tuple[int, int] | None = None,
) -> DyckSplits:
    """:func:`make_splits`, made once and kept in ``folder``.

    The file is named after every parameter
    (``dyck_k{k}_m{m}_seed{seed}_train{..}_dev{..}_test{..}_len{a}-{b}_{c}-{d}.npz``), so
    different splits live side by side. It is an ``.npz`` of flat token and offset arrays
    and a JSON string of the parameters and a format version, written atomically and read
    without pickle. A file whose recorded parameters or format differ from the request
    (renamed, edited, or written by another version of this module) or that cannot be read
    is an error, not silently replaced: results may already rest on it.

    Raises:
        ValueError: a bad argument (as :func:`make_splits`).
        UserError: (a ValueError) the file exists but records other parameters, or is
            unreadable or damaged.
    """
    params = _split_params(
        k, m, seed, train_tokens, dev_tokens, test_tokens, train_lengths, test_lengths
    )
    (a, b), (c, d) = params.train_lengths, params.test_lengths
    path = Path(folder) / (
        f"dyck_k{params.k}_m{params.m}_seed{params.seed}_train{params.train_tokens}"
        f"_dev{params.dev_tokens}_test{params.test_tokens}_len{a}-{b}_{c}-{d}.npz"
    )
    if path.exists():
        return _load(path, params)
    splits = _make(params)
    _save(path, splits)
    return splits
