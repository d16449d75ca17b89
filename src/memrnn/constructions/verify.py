"""Checking that a network generates Dyck-(k,m) (Hewitt et al. 2020, Definitions 4-5).

A network generates a language if for some epsilon > 0 the strings whose every
next-token probability is at least epsilon are exactly the language. For a next-token
model that holds exactly when, at every prefix of every string of the language, the
tokens the automaton allows have probability above every token it forbids: then any
epsilon in between separates them. ``verify`` measures the two sides over every
reachable (automaton state, network state) pair and reports the margin.

Exhaustive search: the constructions' states are saturated (every unit at one of a few
fixed values: 0, 1 or tanh(1), to float32 precision), so from the start only finitely many
states are reachable; a breadth-first
search over pairs of a DFA state and a rounded network state, following every allowed
token, visits all of them, which covers prefixes of every length. A state that is not
saturated stops the search with an error, since rounding would then be unsound.

Sampled search, for (k,m) too large to enumerate: random walks that push and pop with
equal probability (the sampling distribution of Appendix H.1), visiting full and empty
stacks and the end symbol, checking every step.

Both searches refuse settings under which they would check nothing (no steps, no walks,
no states), since an empty search would report that any network generates the language.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import torch
from torch import Tensor

from memrnn.languages.dyck import DyckDFA
from memrnn.validation import check_int

# the values a saturated unit takes: sigmoid and tanh ends, and tanh(1) (an LSTM's h)
LEVELS = np.array([0.0, 1.0, -1.0, math.tanh(1.0), -math.tanh(1.0)])
SATURATION = 1e-5  # a unit this close to a level counts as saturated
_ORDER = torch.from_numpy(np.argsort(LEVELS).astype(np.int8))  # LEVELS' indices by value
_SORTED = torch.from_numpy(np.sort(LEVELS))
_MIDPOINTS = (_SORTED[1:] + _SORTED[:-1]) / 2


class Generator(Protocol):
    """What ``verify`` needs of a network: states as (B, n) tensors."""

    k: int
    m: int

    def initial_state(self, batch: int) -> Tensor: ...

    def step(self, state: Tensor, tokens: Tensor) -> Tensor: ...

    def distribution(self, state: Tensor) -> Tensor: ...


@dataclass(frozen=True)
class Verification:
    """What a search found.

    Attributes:
        generates: every allowed token outweighs every forbidden one at every state seen.
        min_allowed: the smallest probability of an allowed token.
        max_forbidden: the largest probability of a forbidden token.
        states: (DFA state, network state) pairs checked (exhaustive) or steps (walks).
        exhaustive: True for the breadth-first search, False for random walks.
    """

    generates: bool
    min_allowed: float
    max_forbidden: float
    states: int
    exhaustive: bool

    @property
    def margin(self) -> float:
        """min_allowed - max_forbidden: any epsilon strictly inside separates them."""
        return self.min_allowed - self.max_forbidden


class _Extremes:
    def __init__(self) -> None:
        self.min_allowed, self.max_forbidden = 1.0, 0.0

    def update(self, probs: np.ndarray, allowed: np.ndarray) -> None:
        if allowed.any():
            self.min_allowed = min(self.min_allowed, float(probs[allowed].min()))
        if (~allowed).any():
            self.max_forbidden = max(self.max_forbidden, float(probs[~allowed].max()))

    def update_batch(self, probs: Tensor, allowed: Tensor) -> None:
        """``update`` for (F, V) probabilities and masks at once."""
        if allowed.any():
            low = float(probs.masked_fill(~allowed, math.inf).min())
            self.min_allowed = min(self.min_allowed, low)
        if (~allowed).any():
            high = float(probs.masked_fill(allowed, -math.inf).max())
            self.max_forbidden = max(self.max_forbidden, high)

    def result(self, states: int, exhaustive: bool) -> Verification:
        ok = self.max_forbidden < self.min_allowed
        return Verification(
            bool(ok), float(self.min_allowed), float(self.max_forbidden), states, exhaustive
        )


def _allowed_mask(dfa: DyckDFA, code: int) -> np.ndarray:
    return dfa.allowed(dfa.decode(code))


def _allowed_masks(dfa: DyckDFA, codes: np.ndarray) -> np.ndarray:
    """``dfa.allowed`` for a batch of stack codes (F,), as an (F, 2k + 1) bool array:
    with bijective base-k codes the top of a non-empty stack is (code - 1) mod k, and the
    stacks of depth m have the largest codes."""
    k = dfa.k
    masks = np.zeros((len(codes), dfa.vocab_size), dtype=bool)
    masks[:, :k] = (codes < dfa.num_stacks - k**dfa.m)[:, None]
    rows = np.flatnonzero(codes > 0)
    masks[rows, k + (codes[rows] - 1) % k] = True
    masks[codes == 0, dfa.end] = True
    return masks


def _transitions(dfa: DyckDFA, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every allowed (row, token, next code) from a batch of stack codes, the end symbol
    left out (nothing follows it): pushes of every bracket below depth m, and the pop of
    the top."""
    k = dfa.k
    pushing = np.flatnonzero(codes < dfa.num_stacks - k**dfa.m)
    push_rows = np.repeat(pushing, k)
    push_tokens = np.tile(np.arange(k), len(pushing))
    popping = np.flatnonzero(codes > 0)
    rows = np.concatenate([push_rows, popping])
    tokens = np.concatenate([push_tokens, k + (codes[popping] - 1) % k])
    nxt = np.concatenate([codes[push_rows] * k + push_tokens + 1, (codes[popping] - 1) // k])
    return rows, tokens, nxt


@torch.no_grad()
def verify_exhaustive(
    model: Generator, *, max_states: int = 2_000_000, chunk_elements: int = 1 << 24
) -> Verification:
    """Breadth-first search over every reachable (DFA state, network state) pair.

    Each level of the search is one batch: the distributions of its states, then one
    network step per allowed token, both in chunks of about ``chunk_elements`` numbers.

    Raises:
        ValueError: ``max_states`` or ``chunk_elements`` is not an int >= 1.
        RuntimeError: more than ``max_states`` pairs, or a state that is not saturated.
    """
    check_int("max_states", max_states, 1)
    check_int("chunk_elements", chunk_elements, 1)
    dfa = DyckDFA(model.k, model.m)
    extremes = _Extremes()
    state = model.initial_state(1)
    seen = {(0, _keys(state)[0])}
    codes, states = np.zeros(1, dtype=np.int64), state
    while len(codes):
        for rows in _chunks(len(codes), chunk_elements // dfa.vocab_size):
            probs = model.distribution(states[rows])
            allowed = torch.from_numpy(_allowed_masks(dfa, codes[rows])).to(probs.device)
            extremes.update_batch(probs, allowed)
        sources, tokens, nxt_codes = _transitions(dfa, codes)
        keep_codes, keep_states = [], []
        for rows in _chunks(len(sources), chunk_elements // max(1, states.shape[1])):
            step_tokens = torch.from_numpy(tokens[rows]).to(states.device)
            nxt = model.step(states[sources[rows]], step_tokens)
            fresh = []
            for row, key in enumerate(_keys(nxt)):
                pair = (int(nxt_codes[rows][row]), key)
                if pair not in seen:
                    seen.add(pair)
                    fresh.append(row)
            keep_codes.append(nxt_codes[rows][fresh])
            keep_states.append(nxt[torch.tensor(fresh, dtype=torch.long, device=nxt.device)])
            if len(seen) > max_states:
                raise RuntimeError(f"more than max_states = {max_states} reachable pairs")
        if not keep_codes:
            break
        codes, states = np.concatenate(keep_codes), torch.cat(keep_states)
    return extremes.result(len(seen), exhaustive=True)


def _chunks(total: int, size: int) -> list[slice]:
    size = max(1, size)
    return [slice(lo, min(lo + size, total)) for lo in range(0, total, size)]


@torch.no_grad()
def verify_walks(
    model: Generator, *, steps: int = 10_000, walks: int = 8, seed: int = 0
) -> Verification:
    """``walks`` random walks of ``steps`` tokens each, restarting after each end.

    Raises:
        ValueError: ``steps`` or ``walks`` is not an int >= 1, or ``seed`` not an int >= 0.
    """
    check_int("steps", steps, 1)
    check_int("walks", walks, 1)
    check_int("seed", seed, 0)
    dfa = DyckDFA(model.k, model.m)
    rng = np.random.default_rng(seed)
    extremes = _Extremes()
    codes = [0] * walks
    states = model.initial_state(walks)
    for _ in range(steps):
        probs = model.distribution(states).to("cpu", torch.float64).numpy()
        tokens = []
        for row, code in enumerate(codes):
            allowed = _allowed_mask(dfa, code)
            extremes.update(probs[row], allowed)
            tokens.append(_walk_token(dfa, code, allowed, rng))
        states = model.step(states, torch.tensor(tokens, device=states.device))
        for row, token in enumerate(tokens):
            codes[row] = dfa.step_code(codes[row], token)
            if codes[row] == dfa.accept_code:  # start a new string
                codes[row] = 0
                states[row] = model.initial_state(1)[0]
    return extremes.result(steps * walks, exhaustive=False)


def _walk_token(dfa: DyckDFA, code: int, allowed: np.ndarray, rng: np.random.Generator) -> int:
    """Push or pop (or end, on the empty stack) with equal chance; a push picks a bracket
    uniformly."""
    k = dfa.k
    can_push = bool(allowed[:k].any())
    other = [int(t) for t in np.flatnonzero(allowed[k:]) + k]  # the close, or the end
    if can_push and (not other or rng.random() < 0.5):
        return int(rng.integers(k))
    return other[0]


def _keys(states: Tensor) -> list[bytes]:
    """Each state (row) as a digest of its units' saturation levels (indices into
    ``LEVELS``); raise if a unit sits at none. A 16-byte BLAKE2 digest stands for the level
    indices, so that wide states (tens of thousands of units) do not fill memory; a
    collision has chance 2^-128. The nearest level is found by the midpoints between the
    sorted levels: one pass, where comparing with each level in turn took five."""
    values = states.to("cpu", torch.float64)
    bucket = torch.bucketize(values, _MIDPOINTS)
    off = (values - _SORTED[bucket]).abs()
    if off.numel() and not float(off.max()) <= SATURATION:  # NaN is not saturated either
        raise RuntimeError("a network state is not saturated; rounding it would be unsound")
    nearest = _ORDER[bucket]
    return [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in nearest.numpy()]
