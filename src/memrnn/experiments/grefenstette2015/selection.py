"""Which run each cell of Figure 2a reports: of a cell's runs, the one that trains best,
judged on training alone as the paper judges (by training perplexity), never on the test
lengths."""

from __future__ import annotations

import math
from collections.abc import Sequence

from memrnn.experiments.base import RunRecord
from memrnn.experiments.grefenstette2015.config import MODELS
from memrnn.tasks.transduction import TASKS


def training_perplexity(record: RunRecord) -> float:
    """exp of the run's final ``train_loss``: the mean cross-entropy per target symbol over
    its training batches since the previous evaluation; infinite if it has none."""
    loss = record.metrics.get("train_loss")
    return math.inf if loss is None else math.exp(loss)


def select(records: Sequence[RunRecord]) -> list[RunRecord]:
    """One record per cell of Figure 2a (task and model family) and seed, in Figure 2a's
    order: of the cell's runs, the one that trains best. Only training is looked at, never
    the test lengths.

    The paper profile picks, as the paper does, the lowest ``training_perplexity`` of the
    cell's grid; equal perplexities go to the fewer layers, then the smaller hidden size,
    then the first run name. The quick and smoke profiles pick between the DeQue's two
    starts by greedy accuracy at the training lengths: the higher coarse, then fine, then
    the lower training loss; the first run name wins a full tie.

    Raises:
        ValueError: records of more than one profile.
    """
    rank = _perplexity_rank if profile_of(records) == "paper" else _accuracy_rank
    best: dict[tuple[str, str, int], RunRecord] = {}
    for r in sorted(records, key=lambda r: r.spec.name):
        cell = (r.spec.config["task"], r.spec.config["model"], r.spec.seed)
        if cell not in best or rank(r) > rank(best[cell]):
            best[cell] = r
    return sorted(best.values(), key=_order)


def profile_of(records: Sequence[RunRecord]) -> str | None:
    """The one profile of ``records`` (None if there are none).

    Raises:
        ValueError: records of more than one profile.
    """
    profiles = sorted({r.spec.profile for r in records})
    if len(profiles) > 1:
        raise ValueError(f"records: expected the runs of one profile, got {', '.join(profiles)}")
    return profiles[0] if profiles else None


def _accuracy_rank(record: RunRecord) -> tuple[float, float, float]:
    m = record.metrics
    return m["train_coarse"], m["train_fine"], -m.get("train_loss", math.inf)


def _perplexity_rank(record: RunRecord) -> tuple[float, int, int]:
    c = record.spec.config
    return -training_perplexity(record), -c["layers"], -c["hidden"]


def _order(record: RunRecord) -> tuple[int, int, int]:
    """Figure 2a's order: by task, then by model, then by seed."""
    c = record.spec.config
    return TASKS.index(c["task"]), MODELS.index(c["model"]), record.spec.seed
