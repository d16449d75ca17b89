"""The hand-built generators of Hewitt et al. (2020), Theorems 1-5, verified: each one's
hidden units against the count its theorem states and the lower bound m log2(k) / p, and
whether it generates Dyck-(k,m), searched exhaustively or by random walks
(``memrnn.constructions.verify``)."""

from __future__ import annotations

import math
from typing import Any

import torch

from memrnn.constructions import build, theorem_units, verify
from memrnn.experiments.hewitt2020.config import Hewitt2020Config

PRECISION_BITS = 32  # p in the lower bound m log2(k) / p, for float32


def verify_construction(
    config: Hewitt2020Config, device: torch.device
) -> tuple[dict[str, float], dict[str, Any]]:
    """One construction verified (exhaustively or by walks) on ``device``, or a sweep of
    them over k..k_last; a sweep's metrics summarise its languages and its artifacts list
    each."""
    if config.k_last:
        rows = [_verified(config, k, 0, device) for k in _ks(config)]
        return _sweep_summary(rows), {"languages": rows}
    return _verified(config, config.k, config.walk_steps, device), {}


def _ks(config: Hewitt2020Config) -> range:
    return range(config.k, max(config.k, config.k_last) + 1)


def _sweep_summary(rows: list[dict[str, float]]) -> dict[str, float]:
    """A sweep's languages in one row: how many, whether all generate Dyck-(k,m) and have
    the stated units, the extreme probabilities, the states searched."""
    return {
        "pairs": float(len(rows)),
        "generates": float(all(r["generates"] for r in rows)),
        "units_as_stated": float(all(r["units"] == r["stated_units"] for r in rows)),
        "min_allowed": min(r["min_allowed"] for r in rows),
        "max_forbidden": max(r["max_forbidden"] for r in rows),
        "states": float(sum(r["states"] for r in rows)),
    }


def _verified(
    config: Hewitt2020Config, k: int, walk_steps: int, device: torch.device
) -> dict[str, float]:
    """Build and verify ``config.kind`` for Dyck-(k, config.m) on ``device``."""
    kind, m = config.kind, config.m
    model = build(kind, k, m).to(device)
    exhaustive = walk_steps == 0
    options = {} if exhaustive else {"steps": walk_steps, "seed": config.seed}
    result = verify(model, exhaustive=exhaustive, **options)
    return {
        "k": float(k),
        "m": float(m),
        "units": float(model.hidden_size),
        "stated_units": float(theorem_units(kind, k, m)),
        "lower_bound": m * math.log2(k) / PRECISION_BITS if k > 1 else 0.0,
        "generates": float(result.generates),
        "min_allowed": result.min_allowed,
        "max_forbidden": result.max_forbidden,
        "states": float(result.states),
        "exhaustive": float(result.exhaustive),
    }
