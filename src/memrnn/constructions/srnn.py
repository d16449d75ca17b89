"""Simple RNNs that generate Dyck-(k,m) (Hewitt et al. 2020, Theorems 1, 2 and 4).

A Simple RNN here is h_t = sigmoid(W h_{t-1} + U x_t + b) with x_t the one-hot token and
next-token distribution softmax(V h_{t-1} + c); row 0 of the output is the distribution
from h_0 = 0, before any token. Every unit computes a saturated AND or OR of 0/1
quantities: its pre-activation is lam * (sum - threshold) with the sum's values at least
0.5 away from the threshold, so that the unit is 0 or 1 to float32 precision (lam = 100:
sigmoid(50) rounds to 1 in float32). The logits are zeta * (+-0.5) for allowed and
forbidden tokens, which puts every forbidden token at probability e^-zeta or less.

Token ids: open brackets 0..k-1, close brackets k..2k-1 (k + i closes i), end 2k.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.constructions.encodings import Encoding
from memrnn.models.checks import check_token_ids
from memrnn.validation import check_int

LAMBDA = 100.0  # gate scale: sigmoid(LAMBDA / 2) == 1.0 in float32
ZETA = 100.0  # softmax scale: forbidden tokens at e^-ZETA relative to allowed ones
# weights are built in float32 directly: one-hot codes at large k have (2mk)^2 of them
F32 = np.float32


class GeneratorRNN(nn.Module):
    """A Simple RNN language model with given weights, mapping token ids (B, T) to
    next-token probabilities (B, T + 1, 2k + 1).

    Args:
        W, U, b: the recurrence h_t = sigmoid(W h_{t-1} + U x_t + b).
        V, c: the distribution softmax(V h_{t-1} + c) over the 2k + 1 tokens.
        k, m: the language the weights were built for (kept for checks and reports).
        kind: the construction's name.
    """

    W: Tensor
    U: Tensor
    b: Tensor
    V: Tensor
    c: Tensor

    def __init__(
        self,
        W: np.ndarray,
        U: np.ndarray,
        b: np.ndarray,
        V: np.ndarray,
        c: np.ndarray,
        *,
        k: int,
        m: int,
        kind: str,
    ) -> None:
        super().__init__()
        k, m = check_int("k", k, 1), check_int("m", m, 1)
        n, vocab = units_of(W), 2 * k + 1
        check_weights(
            {"W": W, "U": U, "b": b, "V": V, "c": c},
            {"W": (n, n), "U": (n, vocab), "b": (n,), "V": (vocab, n), "c": (vocab,)},
        )
        self.k, self.m, self.kind = k, m, kind
        for name, value in (("W", W), ("U", U), ("b", b), ("V", V), ("c", c)):
            self.register_buffer(name, torch.as_tensor(value, dtype=torch.float32))

    @property
    def hidden_size(self) -> int:
        return int(self.W.shape[0])

    @property
    def vocabulary(self) -> int:
        return 2 * self.k + 1

    def initial_state(self, batch: int) -> Tensor:
        return self.W.new_zeros(batch, self.hidden_size)

    def step(self, h: Tensor, tokens: Tensor) -> Tensor:
        """h_t (B, n) from h_{t-1} (B, n) and the token ids (B,)."""
        return torch.sigmoid(h @ self.W.T + self.U[:, tokens].T + self.b)

    def distribution(self, h: Tensor) -> Tensor:
        """Next-token probabilities (B, 2k + 1) after a state (B, n)."""
        return torch.softmax(h @ self.V.T + self.c, dim=-1)

    def forward(self, tokens: Tensor) -> Tensor:
        check_token_ids(tokens, self.vocabulary)
        h = self.initial_state(tokens.shape[0])
        rows = [self.distribution(h)]
        for t in range(tokens.shape[1]):
            h = self.step(h, tokens[:, t])
            rows.append(self.distribution(h))
        return torch.stack(rows, dim=1)


def units_of(matrix: object) -> int:
    """n, the rows of a recurrent matrix (n, n); 0 for something without rows."""
    shape = np.asarray(matrix).shape
    return int(shape[0]) if shape else 0


def check_weights(weights: object, shapes: Mapping[str, tuple[int, ...]]) -> None:
    """ValueError naming the first of ``weights`` missing, unexpected or not of its shape
    in ``shapes`` (n >= 1 hidden units and 2k + 1 tokens); the values are not read, so
    the check costs nothing at any size."""
    if not isinstance(weights, Mapping) or set(weights) != set(shapes):
        given = sorted(weights) if isinstance(weights, Mapping) else type(weights).__name__
        raise ValueError(f"weights: expected the arrays {sorted(shapes)}, got {given}")
    for name, shape in shapes.items():
        got = np.asarray(weights[name]).shape
        if got != shape or shape[0] < 1:
            raise ValueError(f"{name}: expected shape {shape} with n >= 1, got {got}")


def stack_srnn(k: int, m: int, encoding: Encoding, kind: str) -> GeneratorRNN:
    """The stack Simple RNN of Theorems 2 (one-hot codes, 2mk units) and 4 (psi_*,
    2m(3 ceil(log2 k) - 1) units).

    The hidden state is two copies P and Q of m slots of d = code width units; slot j of
    the stack (j = 0 the top) holds S_j = P_j + Q_j. An open bracket i writes psi(i) into
    P_0 and shifts the stack down (P_j = S_{j-1}); a close bracket shifts it up
    (Q_j = S_{j+1}); each unit is the AND of one slot bit with "the token opens" or
    "the token closes". Allowed next tokens: an open bracket while slot m-1 is empty, the
    close bracket of the top slot's bracket, the end while slot 0 is empty.
    """
    d = encoding.width
    n = 2 * m * d
    vocab = 2 * k + 1
    opens, closes, end = np.arange(k), np.arange(k, 2 * k), 2 * k

    def p(j: int) -> slice:
        return slice(j * d, (j + 1) * d)

    def q(j: int) -> slice:
        return slice((m + j) * d, (m + j + 1) * d)

    W, U, b = np.zeros((n, n), F32), np.zeros((n, vocab), F32), np.zeros(n, F32)
    eye = np.eye(d)
    U[p(0), :k] = LAMBDA * encoding.codes.T  # bit r of psi(i) when i opens
    b[p(0)] = -0.5 * LAMBDA
    for j in range(1, m):  # push: slot j takes slot j - 1
        W[p(j), p(j - 1)] = W[p(j), q(j - 1)] = LAMBDA * eye
        U[p(j), opens[0] : opens[-1] + 1] = LAMBDA
        b[p(j)] = -1.5 * LAMBDA
    for j in range(m - 1):  # pop: slot j takes slot j + 1
        W[q(j), p(j + 1)] = W[q(j), q(j + 1)] = LAMBDA * eye
        U[q(j), closes[0] : closes[-1] + 1] = LAMBDA
        b[q(j)] = -1.5 * LAMBDA
    b[q(m - 1)] = -0.5 * LAMBDA  # nothing rises into the bottom slot on a pop

    V, c = np.zeros((vocab, n), F32), np.zeros(vocab, F32)
    full = -ZETA / encoding.ones  # times the bits of slot m - 1: -ZETA when it is full
    V[:k, p(m - 1)] = V[:k, q(m - 1)] = full
    c[:k] = 0.5 * ZETA
    V[k : 2 * k, p(0)] = V[k : 2 * k, q(0)] = ZETA * encoding.readout
    c[k : 2 * k] = -0.5 * ZETA
    V[end, p(0)] = V[end, q(0)] = -ZETA / encoding.ones
    c[end] = 0.5 * ZETA
    return GeneratorRNN(W, U, b, V, c, k=k, m=m, kind=kind)


def dfa_srnn(k: int, m: int) -> GeneratorRNN:
    """The naive Simple RNN of Theorem 1: one unit per transition (stack q, token s) of
    the Dyck-(k,m) automaton with s not the end, active when the last step took that
    transition. With the stacks of depth <= m that is 2 (k + k^2 + ... + k^m) units,
    inside the theorem's O(k^(m+1)).

    Unit (q, s) is the AND of "the state is q" (a sum of the units entering q; for the
    empty stack also 1 minus all units, which holds at the start) and "the token is s".
    Token s is allowed where the units entering a state that allows s sum to 1.
    """
    stacks: list[tuple[int, ...]] = [()]
    for depth in range(m):
        stacks += [(*s, i) for s in stacks if len(s) == depth for i in range(k)]
    transitions = []  # (q, token, next q)
    for q in stacks:
        if len(q) < m:
            transitions += [(q, i, (*q, i)) for i in range(k)]
        if q:
            transitions.append((q, k + q[-1], q[:-1]))
    n, vocab = len(transitions), 2 * k + 1
    entering: dict[tuple[int, ...], list[int]] = {q: [] for q in stacks}
    for unit, (_, _, target) in enumerate(transitions):
        entering[target].append(unit)

    def indicator(q: tuple[int, ...]) -> tuple[np.ndarray, float]:
        """Weights and constant of the linear function that is 1 exactly in state q."""
        w = np.zeros(n)
        w[entering[q]] = 1.0
        if q == ():  # 1 - (units not entering q): also 1 at the start, with no unit active
            return w - 1.0, 1.0
        return w, 0.0

    W, U, b = np.zeros((n, n), F32), np.zeros((n, vocab), F32), np.zeros(n, F32)
    for unit, (q, token, _) in enumerate(transitions):
        w, const = indicator(q)
        W[unit] = LAMBDA * w
        U[unit, token] = LAMBDA
        b[unit] = LAMBDA * (const - 1.5)
    V, c = np.zeros((vocab, n), F32), np.full(vocab, -0.5 * ZETA, F32)
    for q in stacks:
        allowed = ([*range(k)] if len(q) < m else []) + ([k + q[-1]] if q else [2 * k])
        w, const = indicator(q)
        for token in allowed:
            V[token] += ZETA * w
            c[token] += ZETA * const
    return GeneratorRNN(W, U, b, V, c, k=k, m=m, kind="srnn-dfa")
