"""The runs of each profile of hewitt2020 (``PROFILES``), and their names.

Constructions: the four efficient ones (Theorems 2-5) verified exhaustively on every
(k, m) with k >= 2 and k^m <= SWEEP_BOUND, Theorem 1's on k^(m + 1) <= DFA_BOUND, one run
per m (m = 1 in blocks of M1_BLOCK brackets), and the efficient ones by random walks on a
few large languages. Language models: the LSTMs of section 8 per (k, m, training tokens),
LM_SEEDS seeds each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memrnn.experiments.base import Profile
from memrnn.experiments.grid import Axis, Grid, Point
from memrnn.experiments.hewitt2020.config import Hewitt2020Config
from memrnn.experiments.hewitt2020.paper import (
    LM_SEEDS,
    PAPER_KS,
    PAPER_MS,
    PAPER_SIZES,
    learning_rate,
)

# Every language costs (k + 1)(2k + 1) next-token probabilities plus 2k network steps, so
# m = 1 grows like k^3 (k^4 for one-hot codes, whose dense weights grow like k^2), measured
# on a 2-core CPU at 9 s for the log codes at k = 20000 and 25 s for the one-hot SRNN at
# k = 5000; every m >= 2 together is about 150 s. So the quick profile stops m = 1 at
# QUICK_M1_LAST.
SWEEP_BOUND, DFA_BOUND = 20_000, 4_096
M1_BLOCK, QUICK_M1_LAST = 1_000, 1_000
WALKED = [(128, 5), (64, 10), (1000, 3)]  # (k, m) too large to search, walked instead
EFFICIENT = ("srnn-onehot", "lstm-onehot", "srnn-log", "lstm-log")
SMOKE_DFA_LAST = 3
_CONSTRUCTION: dict[str, Axis] = {"part": ("construction",)}


def largest_k(bound: int, power: int) -> int:
    """The largest k with k^power <= bound."""
    k = round(bound ** (1 / power))
    while k**power > bound:
        k -= 1
    while (k + 1) ** power <= bound:
        k += 1
    return k


def sweep_runs(kind: str, quick: bool) -> list[tuple[int, int, int]]:
    """(m, first k, last k) of the sweep runs of one construction."""
    if kind == "srnn-dfa":
        return [
            (m, 2, largest_k(DFA_BOUND, m + 1))
            for m in range(1, 12)
            if largest_k(DFA_BOUND, m + 1) >= 2
        ]
    runs = [(m, 2, largest_k(SWEEP_BOUND, m)) for m in range(2, 15)]
    last = QUICK_M1_LAST if quick else SWEEP_BOUND
    runs += [(1, lo, min(lo + M1_BLOCK - 1, last)) for lo in range(1, last + 1, M1_BLOCK)]
    return [(m, max(2, lo), hi) for m, lo, hi in runs if largest_k(SWEEP_BOUND, m) >= 2]


def _sweeps(quick: bool) -> Grid:
    """Every construction, verified exhaustively on its sweep's languages."""
    kinds = (*EFFICIENT, "srnn-dfa")
    return Grid({**_CONSTRUCTION, "kind": kinds, "sweep": lambda p: sweep_runs(p["kind"], quick)})


def _walks(quick: bool) -> Grid:
    """The efficient constructions by walks on the large languages; one-hot codes at
    k = 1000 have 3000-6000 dense units, 30 s per 1000 steps, so fewer in the quick profile."""

    def steps(point: Point) -> tuple[int]:
        slow = "onehot" in point["kind"] and point["language"][0] >= 1000
        return (1_000 if quick and slow else 10_000,)

    return Grid({**_CONSTRUCTION, "kind": EFFICIENT, "language": WALKED, "walk_steps": steps})


def _language_models(ks: Sequence[int], ms: Sequence[int], sizes: Sequence[int]) -> Grid:
    """LSTMs per (k, m, training tokens) and seed, at Appendix H.3's learning rates."""

    def lr(point: Point) -> tuple[float]:
        return (learning_rate(point["k"], point["train_tokens"]),)

    return Grid(
        {
            "part": ("lm",),
            "k": ks,
            "m": ms,
            "train_tokens": sizes,
            "lr": lr,
            "seed": range(LM_SEEDS),
        }
    )


PROFILES: dict[Profile, tuple[Grid, ...]] = {
    # A check that every part and the report run, not a result: the constructions on
    # tiny languages, one LSTM trained for two epochs on a few hundred tokens.
    "smoke": (
        Grid({**_CONSTRUCTION, "kind": EFFICIENT, "k": (2,), "m": (2,)}),
        Grid({**_CONSTRUCTION, "kind": ("srnn-dfa",), "sweep": ((1, 2, SMOKE_DFA_LAST),)}),
        Grid(
            {"part": ("lm",), "k": (2,), "m": (3,), "train_tokens": (300,), "seed": (0,)},
            {"dev_tokens": 200, "test_tokens": 400, "max_epochs": 2},
        ),
    ),
    "quick": (_sweeps(True), _walks(True), _language_models((2, 8), (3,), (20_000, 200_000))),
    "paper": (_sweeps(False), _walks(False), _language_models(PAPER_KS, PAPER_MS, PAPER_SIZES)),
}


def coordinates(point: Point) -> Mapping[str, Any]:
    """The config fields of a construction's sweep (m, first k, last k) or walked
    language (k, m)."""
    if "sweep" in point:
        m, k, k_last = point["sweep"]
        return {"m": m, "k": k, "k_last": k_last}
    if "language" in point:
        k, m = point["language"]
        return {"k": k, "m": m}
    return {}


def run_name(point: Point, config: Hewitt2020Config) -> str:
    """A run's name, such as "construction/lstm-log/m2/k2-141/sweep",
    "construction/srnn-log/k128-m5/walks10000" or "lm/k2-m3/20000/seed0"."""
    c = config
    if c.k_last:
        return f"construction/{c.kind}/m{c.m}/k{c.k}-{c.k_last}/sweep"
    if c.part == "construction":
        how = "exhaustive" if c.walk_steps == 0 else f"walks{c.walk_steps}"
        return f"construction/{c.kind}/k{c.k}-m{c.m}/{how}"
    return f"lm/k{c.k}-m{c.m}/{c.train_tokens}/seed{c.seed}"
