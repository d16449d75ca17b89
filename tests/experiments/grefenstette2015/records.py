"""Stored runs made up for the tests of the choice of runs and of the report: quick,
smoke and paper runs with given training and test scores, whose test scores can be
guarded against being read."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from memrnn.experiments.base import RunRecord
from memrnn.experiments.grefenstette2015 import Grefenstette2015
from memrnn.experiments.grid import other_seeds

with other_seeds([0, 1, 2]):  # the quick runs at three seeds, for the reports over seeds
    _QUICK_RUNS = {
        s.name: s for s in Grefenstette2015().runs("smoke") + Grefenstette2015().runs("quick")
    }
_PAPER_RUNS = {
    tuple(s.config[k] for k in ("task", "model", "layers", "hidden", "lr")): s
    for s in Grefenstette2015().runs("paper")
}
Coordinates = tuple[str, str, int, int, float]  # task, model, layers, hidden, lr


class TrainingOnly(Mapping[str, float]):
    """A run's metrics whose test scores must not be read, by any route."""

    def __init__(self, metrics: dict[str, float]) -> None:
        self._metrics = metrics

    def __getitem__(self, key: str) -> float:
        if key.startswith("test_"):
            raise AssertionError(f"the choice of a run read {key}")
        return self._metrics[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)


def _metrics(train: tuple[float, float, float | None], test: float) -> dict[str, float]:
    metrics = {"train_coarse": train[0], "train_fine": train[1], "test_coarse": test,
               "test_fine": test, "curriculum": 32.0}  # fmt: skip
    if train[2] is not None:
        metrics["train_loss"] = train[2]
    return metrics


def quick_record(
    profile: str, name: str, train: tuple[float, float, float], test: float, guarded: bool = False
) -> RunRecord:
    """A quick or smoke run of that name (or a copy of its Queue-LSTM run renamed)."""
    spec = _QUICK_RUNS.get(name) or dataclasses.replace(_QUICK_RUNS["copy/queue/seed0"], name=name)
    spec = dataclasses.replace(spec, profile=profile)
    metrics = _metrics(train, test)
    return RunRecord(spec, TrainingOnly(metrics) if guarded else metrics, {}, "v", 1.0)


def paper_record(
    coordinates: Coordinates, loss: float | None, test: float, guarded: bool = True
) -> RunRecord:
    """The paper profile's run at those grid coordinates, with that final training loss."""
    metrics = _metrics((0.5, 0.5, loss), test)
    return RunRecord(
        _PAPER_RUNS[coordinates], TrainingOnly(metrics) if guarded else metrics, {}, "v", 1.0
    )


def two_deque_starts() -> list[RunRecord]:
    """Quick runs where the DeQue's better-trained start tests worse (copy) or only its
    training loss decides (reversal), and a full tie of two renamed Queue-LSTM runs."""
    return [
        quick_record("quick", "copy/deque-even/seed0", (0.3, 0.6, 0.1), test=0.9),
        quick_record("quick", "copy/deque-top-open/seed0", (1.0, 1.0, 0.2), test=0.1),
        quick_record("quick", "reversal/deque-even/seed0", (1.0, 1.0, 0.01), test=0.2),
        quick_record("quick", "reversal/deque-top-open/seed0", (1.0, 1.0, 0.02), test=1.0),
        quick_record("quick", "reversal/stack/seed0", (0.5, 0.5, 0.5), test=0.5),
        quick_record("quick", "copy/queue-b/seed0", (1.0, 1.0, 0.0), test=0.0),
        quick_record("quick", "copy/queue-a/seed0", (1.0, 1.0, 0.0), test=1.0),
    ]
