"""The DFA of Dyck-(k,m) (Hewitt et al. 2020, Appendix B) and membership tests built on it.

The DFA's accept state goes to reject on any further token; the paper leaves those
transitions undefined because omega can only come last.

>>> from memrnn.languages.dyck.tokens import from_text
>>> dfa = DyckDFA(2, 2)
>>> dfa.num_states, dfa.accepts(from_text("([])#", 2)), is_dyck(from_text("((()))#", 1), 1, 2)
(9, True, False)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np

from memrnn.languages.dyck.tokens import check_tokens
from memrnn.validation import check_int, is_int


class Terminal(enum.Enum):
    """The two DFA states that are not stacks."""

    REJECT = "reject"
    ACCEPT = "accept"


REJECT = Terminal.REJECT
ACCEPT = Terminal.ACCEPT

State = tuple[int, ...] | Terminal
"""A DFA state: a stack of open-bracket ids (bottom first, at most m), REJECT or ACCEPT."""


class DyckDFA:
    """The DFA D_{m,k} of Appendix B, with states coded as integers for fast search.

    States (B.1): a stack of open brackets ``(i_1, ..., i_d)``, bottom first, of depth
    0 <= d <= m, plus the reject state and the accept state. There are
    sum_{d=0..m} k^d stacks, so ``num_states`` = sum_{d=0..m} k^d + 2. The paper counts
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
        self.k = check_int("k", k, 1)
        self.m = check_int("m", m, 1)
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
        code, _ = self._run(check_tokens(tokens, self.k, "tokens"))
        return self.decode(code)

    def accepts(self, tokens: Sequence[int] | np.ndarray) -> bool:
        """Whether ``tokens`` is a string of Dyck-(k,m) (end symbol included).

        Raises:
            ValueError: ``tokens`` holds something that is not a token id.
        """
        code, _ = self._run(check_tokens(tokens, self.k, "tokens"))
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
    code, bad = dfa._run(check_tokens(prefix, dfa.k, "prefix"))
    if bad is not None:
        raise ValueError(
            f"prefix[{bad}]: token {prefix[bad]} cannot follow the tokens before it, so this "
            f"is not a prefix of any Dyck-({k},{m}) string"
        )
    return dfa.allowed(dfa.decode(code))
