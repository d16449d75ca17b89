"""Networks built by hand that generate Dyck-(k,m) (Hewitt et al. 2020), and the check
that they do.

``build(kind, k, m)`` returns a torch module mapping token ids (B, T) (open brackets
0..k-1, close brackets k..2k-1 with k + i closing i, end 2k) to next-token probabilities
(B, T + 1, 2k + 1), row 0 the distribution before any token. ``verify`` checks that the
locally epsilon-truncated support is exactly Dyck-(k,m).
"""

from __future__ import annotations

from memrnn.constructions.encodings import logarithmic, onehot
from memrnn.constructions.lstm import GeneratorLSTM, stack_lstm
from memrnn.constructions.size import (
    KINDS,
    MAX_WEIGHTS,
    check_size,
    theorem_units,
    weight_count,
)
from memrnn.constructions.srnn import GeneratorRNN, dfa_srnn, stack_srnn
from memrnn.constructions.verify import Verification, verify_exhaustive, verify_walks

Generator = GeneratorRNN | GeneratorLSTM


def build(kind: str, k: int, m: int, *, max_weights: int = MAX_WEIGHTS) -> Generator:
    """The construction ``kind`` for Dyck-(k,m).

    Kinds: "srnn-onehot" (Theorem 2, 2mk units), "lstm-onehot" (Theorem 3, mk units,
    W_c = 0), "srnn-log" (Theorem 4, 6m ceil(log2 k) - 2m units, k >= 2), "lstm-log"
    (Theorem 5, 3m ceil(log2 k) - m units, k >= 2), "srnn-dfa" (Theorem 1,
    2 (k + ... + k^m) units).

    Raises:
        ValueError: a bad kind, k or m, or a construction whose weights would exceed
            ``max_weights`` float32 numbers (``check_size``; by default
            ``MAX_WEIGHTS``, 32 GiB), refused before anything is allocated.
    """
    check_size(kind, k, m, max_weights)
    if kind == "srnn-onehot":
        return stack_srnn(k, m, onehot(k), kind)
    if kind == "srnn-log":
        return stack_srnn(k, m, logarithmic(k), kind)
    if kind == "lstm-onehot":
        return stack_lstm(k, m, onehot(k), kind)
    if kind == "lstm-log":
        return stack_lstm(k, m, logarithmic(k), kind)
    return dfa_srnn(k, m)


def verify(model: Generator, *, exhaustive: bool = True, **options: int) -> Verification:
    """Whether ``model`` generates Dyck-(model.k, model.m): a breadth-first search over
    every reachable state (``exhaustive``: ``max_states``, ``chunk_elements``) or random
    walks (``steps``, ``walks``, ``seed``).

    Raises:
        TypeError: ``model`` is not a construction (``build``'s).
        ValueError: an option of the other search, or a count below 1.
    """
    if not isinstance(model, GeneratorRNN | GeneratorLSTM):
        raise TypeError(
            f"model: expected a GeneratorRNN or GeneratorLSTM (from build), "
            f"got {type(model).__name__}"
        )
    allowed = ("max_states", "chunk_elements") if exhaustive else ("steps", "walks", "seed")
    for name in options:
        if name not in allowed:
            search = "the exhaustive search" if exhaustive else "random walks"
            raise ValueError(f"{name}: not an option of {search}; its options are {allowed}")
    if exhaustive:
        return verify_exhaustive(model, **options)
    return verify_walks(model, **options)


__all__ = [
    "KINDS",
    "MAX_WEIGHTS",
    "Generator",
    "GeneratorLSTM",
    "GeneratorRNN",
    "Verification",
    "build",
    "check_size",
    "theorem_units",
    "verify",
    "weight_count",
]
