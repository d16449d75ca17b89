"""How large a construction of Hewitt et al. (2020) is, known before it is built: its
hidden units (the count each theorem states) and the numbers its weight matrices hold.

Every construction is dense: a Simple RNN holds W (n, n), U (n, V), V (V, n) and two
biases, an LSTM three gates' W and four U, for n hidden units and V = 2k + 1 tokens. The
weights grow as n^2, and n grows fast: as k^m for Theorem 1's automaton (``srnn-dfa``),
as m k for the one-hot codes. ``check_size`` refuses a construction whose weights exceed a
limit, naming the size it would need, before anything is allocated.
"""

from __future__ import annotations

import math

from memrnn.validation import check_choice, check_int

KINDS = ("srnn-onehot", "lstm-onehot", "srnn-log", "lstm-log", "srnn-dfa")

MAX_WEIGHTS = 2**33
"""The default limit on a construction's weights, float32 numbers (32 GiB). The largest
languages of the paper profile, one-hot codes at k = 20000 and m = 1, need 4.8e9."""

# A number of units past 2^_HUGE_BITS is only estimated: its weights are over any limit
# that fits a computer, and the exact count could take long to write out.
_HUGE_BITS = 256


def theorem_units(kind: str, k: int, m: int) -> int:
    """The hidden units each theorem states for Dyck-(k,m), which is what ``build`` makes;
    for Theorem 1's O(k^(m+1)), the 2 (k + k^2 + ... + k^m) units of ``srnn-dfa``.

    Raises:
        ValueError: a kind not in ``KINDS``, k or m not an int >= 1, or k = 1 for the
            logarithmic codes (they need k >= 2).
    """
    check_choice("kind", kind, KINDS)
    k, m = check_int("k", k, 1), check_int("m", m, 1)
    if kind == "srnn-dfa":
        return 2 * _geometric(k, m)
    if kind.endswith("log") and k < 2:
        raise ValueError(f"k: the logarithmic code needs k >= 2, got {k}")
    bits = math.ceil(math.log2(k)) if k > 1 else 0
    units = {
        "srnn-onehot": 2 * m * k,
        "lstm-onehot": m * k,
        "srnn-log": 6 * m * bits - 2 * m,
        "lstm-log": 3 * m * bits - m,
    }
    return units[kind]


def weight_count(kind: str, k: int, m: int) -> int:
    """The numbers in the weights of ``build(kind, k, m)``: n^2 + 2 n V + n + V for a
    Simple RNN, 3 n^2 + 5 n V + 4 n + V for an LSTM, with n = ``theorem_units`` and
    V = 2k + 1 (raises as ``theorem_units``)."""
    n, vocab = theorem_units(kind, k, m), 2 * k + 1
    if kind.startswith("lstm"):
        return 3 * n * n + 5 * n * vocab + 4 * n + vocab
    return n * n + 2 * n * vocab + n + vocab


def check_size(kind: str, k: int, m: int, max_weights: int = MAX_WEIGHTS) -> None:
    """Raise ValueError naming k, m, the hidden units and weights the construction would
    need, and the limit, when its weights would exceed ``max_weights``; checks the
    arguments as ``theorem_units`` does, and ``max_weights`` (an int >= 1)."""
    check_choice("kind", kind, KINDS)
    k, m = check_int("k", k, 1), check_int("m", m, 1)
    limit = check_int("max_weights", max_weights, 1)
    if (
        kind == "srnn-dfa"
        and k > 1
        and m * math.log2(k) > _HUGE_BITS
        and limit.bit_length() <= 2 * _HUGE_BITS
    ):
        # 2 (k + ... + k^m) > 2 k^m, and the weights exceed its square
        units = f"more than 2^{m * math.log2(k) + 1:.0f}"
        weights = f"more than 2^{2 * m * math.log2(k) + 2:.0f}"
    else:
        needed = weight_count(kind, k, m)
        if needed <= limit:
            return
        units, weights = f"{theorem_units(kind, k, m):,}", f"{needed:.3g}"
    raise ValueError(
        f"k, m: {kind} for Dyck-(k={k}, m={m}) needs {units} hidden units and {weights} "
        f"float32 weights, over the limit max_weights = {limit:,}; choose a smaller k or m "
        "(or raise max_weights where the memory allows)"
    )


def _geometric(k: int, m: int) -> int:
    """k + k^2 + ... + k^m, exactly."""
    return m if k == 1 else (k ** (m + 1) - k) // (k - 1)
