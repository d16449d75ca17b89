"""LSTMs that generate Dyck-(k,m) (Hewitt et al. 2020, Theorems 3 and 5), W_c = 0.

The cell state holds the stack in m slots of d units (slot j = depth j + 1, bottom
first), each slot the code psi of its bracket or zeros; the hidden state passes only the
top slot, as tanh(psi) = gamma psi with gamma = tanh(1). The gates read h_{t-1} (which
shows where the top is, T_j = 1 for the top slot j) and the token:

- input gate of slot j: open on an open bracket when the top is slot j - 1 (slot 0 on
  the empty stack); the candidate tanh(lam U_c x) is psi(i) in every slot, with W_c = 0;
- forget gate of slot j: closed on a close bracket when the top is slot j;
- output gate of slot j: closed exactly when the new top lies above j (the paper's
  Eq. E.23): -1 for a top at j or j + 1, -2 for a top further up, +0.5 on an open
  bracket or the end, +1.5 on a close bracket, all times lam. After a pop the old top
  slot is empty, so whether its gate opens does not matter.

Every pre-activation is lam times a number at least 0.5 from 0, as in ``srnn``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.constructions.encodings import Encoding
from memrnn.constructions.srnn import F32, LAMBDA, ZETA, check_weights, units_of
from memrnn.models.checks import check_token_ids
from memrnn.validation import check_int

GAMMA = math.tanh(1.0)


class GeneratorLSTM(nn.Module):
    """An LSTM language model with given weights; its state is [h; c] (B, 2n).

    The gates are sigmoid(W_g h_{t-1} + U_g x_t + b_g) for g in i, f, o; the candidate
    is tanh(U_c x_t + b_c) (W_c = 0); the next-token distribution is
    softmax(V h_{t-1} + c_out).
    """

    W_i: Tensor
    U_i: Tensor
    b_i: Tensor
    W_f: Tensor
    U_f: Tensor
    b_f: Tensor
    W_o: Tensor
    U_o: Tensor
    b_o: Tensor
    U_c: Tensor
    b_c: Tensor
    V: Tensor
    c_out: Tensor

    def __init__(self, weights: dict[str, np.ndarray], *, k: int, m: int, kind: str) -> None:
        super().__init__()
        k, m = check_int("k", k, 1), check_int("m", m, 1)
        n = units_of(weights.get("W_i")) if isinstance(weights, Mapping) else 0
        vocab = 2 * k + 1
        square, per_token = (n, n), (n, vocab)
        check_weights(
            weights,
            {
                **{f"W_{g}": square for g in "ifo"},
                **{f"U_{g}": per_token for g in "ifoc"},
                **{f"b_{g}": (n,) for g in "ifoc"},
                "V": (vocab, n),
                "c_out": (vocab,),
            },
        )
        self.k, self.m, self.kind = k, m, kind
        for name, value in weights.items():
            self.register_buffer(name, torch.as_tensor(value, dtype=torch.float32))

    @property
    def hidden_size(self) -> int:
        return int(self.W_i.shape[0])

    @property
    def vocabulary(self) -> int:
        return 2 * self.k + 1

    def initial_state(self, batch: int) -> Tensor:
        return self.W_i.new_zeros(batch, 2 * self.hidden_size)

    def step(self, state: Tensor, tokens: Tensor) -> Tensor:
        """[h_t; c_t] from [h_{t-1}; c_{t-1}] (B, 2n) and token ids (B,)."""
        n = self.hidden_size
        h, c = state[:, :n], state[:, n:]

        def gate(name: str) -> Tensor:
            W, U, b = (
                getattr(self, f"W_{name}"),
                getattr(self, f"U_{name}"),
                getattr(self, f"b_{name}"),
            )
            return torch.sigmoid(h @ W.T + U[:, tokens].T + b)

        candidate = torch.tanh(self.U_c[:, tokens].T + self.b_c)
        c = gate("f") * c + gate("i") * candidate
        h = gate("o") * torch.tanh(c)
        return torch.cat([h, c], dim=1)

    def distribution(self, state: Tensor) -> Tensor:
        """Next-token probabilities (B, 2k + 1) from the h part of a state."""
        h = state[:, : self.hidden_size]
        return torch.softmax(h @ self.V.T + self.c_out, dim=-1)

    def forward(self, tokens: Tensor) -> Tensor:
        check_token_ids(tokens, self.vocabulary)
        state = self.initial_state(tokens.shape[0])
        rows = [self.distribution(state)]
        for t in range(tokens.shape[1]):
            state = self.step(state, tokens[:, t])
            rows.append(self.distribution(state))
        return torch.stack(rows, dim=1)


def stack_lstm(k: int, m: int, encoding: Encoding, kind: str) -> GeneratorLSTM:
    """The stack LSTM of Theorems 3 (one-hot codes, mk units) and 5 (psi_*,
    m(3 ceil(log2 k) - 1) units)."""
    d = encoding.width
    n, vocab, end = m * d, 2 * k + 1, 2 * k
    top = 1.0 / (GAMMA * encoding.ones)  # times a slot's h units: 1 when it is the top

    def slot(j: int) -> slice:
        return slice(j * d, (j + 1) * d)

    weights = {
        f"{kind}_{g}": np.zeros(shape, F32)
        for g in "ifo"
        for kind, shape in (("W", (n, n)), ("U", (n, vocab)), ("b", (n,)))
    }
    W_i, U_i, b_i = weights["W_i"], weights["U_i"], weights["b_i"]
    W_f, U_f, b_f = weights["W_f"], weights["U_f"], weights["b_f"]
    W_o, U_o = weights["W_o"], weights["U_o"]  # b_o stays 0
    # input: slot 0 on an open bracket and an empty stack; slot j after a top at j - 1
    W_i[slot(0), :] = -LAMBDA * top
    U_i[slot(0), :k] = LAMBDA
    b_i[slot(0)] = -0.5 * LAMBDA
    for j in range(1, m):
        W_i[slot(j), slot(j - 1)] = LAMBDA * top
        U_i[slot(j), :k] = LAMBDA
        b_i[slot(j)] = -1.5 * LAMBDA
    # forget: keep, unless a close bracket pops the top slot
    for j in range(m):
        W_f[slot(j), slot(j)] = -LAMBDA * top
    U_f[:, k : 2 * k] = -LAMBDA
    b_f[:] = 1.5 * LAMBDA
    # output: closed below the new top (Eq. E.23)
    for j in range(m):
        for above in range(j, m):
            W_o[slot(j), slot(above)] = (-1.0 if above <= j + 1 else -2.0) * LAMBDA * top
    U_o[:, :k] = U_o[:, end] = 0.5 * LAMBDA
    U_o[:, k : 2 * k] = 1.5 * LAMBDA
    U_c = np.zeros((n, vocab), F32)
    for j in range(m):
        U_c[slot(j), :k] = LAMBDA * encoding.codes.T
    weights["U_c"], weights["b_c"] = U_c, np.zeros(n, F32)

    V, c_out = np.zeros((vocab, n), F32), np.zeros(vocab, F32)
    V[:k, slot(m - 1)] = -ZETA * top  # open brackets while slot m - 1 is not the top
    c_out[:k] = 0.5 * ZETA
    for j in range(m):
        V[k : 2 * k, slot(j)] = ZETA * encoding.readout / GAMMA  # the top's bracket
        V[end, slot(j)] = -ZETA * top  # the end on the empty stack
    c_out[k : 2 * k] = -0.5 * ZETA
    c_out[end] = 0.5 * ZETA
    weights["V"], weights["c_out"] = V, c_out
    return GeneratorLSTM(weights, k=k, m=m, kind=kind)
