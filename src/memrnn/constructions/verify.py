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
equal probability (the seed's sampling distribution), visiting full and empty stacks and
the end symbol, checking every step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import torch
from torch import Tensor

from memrnn.languages.dyck import DyckDFA

# the values a saturated unit takes: sigmoid and tanh ends, and tanh(1) (an LSTM's h)
LEVELS = np.array([0.0, 1.0, -1.0, math.tanh(1.0), -math.tanh(1.0)])
SATURATION = 1e-5  # a unit this close to a level counts as saturated


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

    def result(self, states: int, exhaustive: bool) -> Verification:
        ok = self.max_forbidden < self.min_allowed
        return Verification(ok, self.min_allowed, self.max_forbidden, states, exhaustive)


def _allowed_mask(dfa: DyckDFA, code: int) -> np.ndarray:
    return dfa.allowed(dfa.decode(code))


@torch.no_grad()
def verify_exhaustive(model: Generator, *, max_states: int = 2_000_000) -> Verification:
    """Breadth-first search over every reachable (DFA state, network state) pair."""
    dfa = DyckDFA(model.k, model.m)
    extremes = _Extremes()
    state = model.initial_state(1)
    seen = {(0, _key(state[0]))}
    frontier_codes, frontier_states = [0], state
    while frontier_codes:
        probs = model.distribution(frontier_states).double().numpy()
        sources, tokens, codes = [], [], []
        for row, code in enumerate(frontier_codes):
            allowed = _allowed_mask(dfa, code)
            extremes.update(probs[row], allowed)
            for token in np.flatnonzero(allowed):
                if token == dfa.end:
                    continue  # the string is complete; nothing follows the end symbol
                sources.append(row)
                tokens.append(int(token))
                codes.append(dfa.step_code(code, int(token)))
        if not sources:
            break
        nxt = model.step(frontier_states[sources], torch.tensor(tokens))
        keep_codes, keep_rows = [], []
        for row, code in enumerate(codes):
            pair = (code, _key(nxt[row]))
            if pair not in seen:
                seen.add(pair)
                keep_codes.append(code)
                keep_rows.append(row)
        if len(seen) > max_states:
            raise RuntimeError(f"more than max_states = {max_states} reachable pairs")
        frontier_codes, frontier_states = keep_codes, nxt[keep_rows]
    return extremes.result(len(seen), exhaustive=True)


@torch.no_grad()
def verify_walks(
    model: Generator, *, steps: int = 10_000, walks: int = 8, seed: int = 0
) -> Verification:
    """``walks`` random walks of ``steps`` tokens each, restarting after each end."""
    dfa = DyckDFA(model.k, model.m)
    rng = np.random.default_rng(seed)
    extremes = _Extremes()
    codes = [0] * walks
    states = model.initial_state(walks)
    for _ in range(steps):
        probs = model.distribution(states).double().numpy()
        tokens = []
        for row, code in enumerate(codes):
            allowed = _allowed_mask(dfa, code)
            extremes.update(probs[row], allowed)
            tokens.append(_walk_token(dfa, code, allowed, rng))
        states = model.step(states, torch.tensor(tokens))
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


def _key(state: Tensor) -> bytes:
    """Each unit as the index of its saturation level; raise if a unit sits at none."""
    values = state.double().numpy()
    distance = np.abs(values[:, None] - LEVELS[None, :])
    nearest = distance.argmin(axis=1)
    if distance[np.arange(len(values)), nearest].max(initial=0.0) > SATURATION:
        raise RuntimeError("a network state is not saturated; rounding it would be unsound")
    return nearest.astype(np.int8).tobytes()
