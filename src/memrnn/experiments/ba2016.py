"""Ba, Hinton, Mnih, Leibo, Ionescu (2016), *Using Fast Weights to Attend to the Recent
Past*, section 4.1: associative retrieval, Table 1.

Four recurrent models with R units read ``c9k8j3f1??c`` and name the digit stored with
the query key: the Fast Weights RNN, an IRNN, an LSTM and an LSTM with attention over its
past states (A-LSTM), each with the paper's readout (a 100-unit ReLU layer, then a softmax
over the 10 digits). All runs of a profile share one set of splits (100k / 10k / 20k),
written once under the run's data folder; validation error is logged during training (the
learning curves) and the table reports the test error of the final model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from memrnn.experiments.base import Profile, RunContext, RunRecord, RunSpec, TrainedExperiment
from memrnn.experiments.config import MonitorMode, TrainConfig
from memrnn.experiments.grid import Grid, grid_runs
from memrnn.experiments.tables import (
    Cell,
    PaperTables,
    Table,
    curve,
    group,
    in_order,
    mean_cell,
    mean_std,
    metric,
    paper_number,
    printed_rows,
)
from memrnn.io import load_or_make
from memrnn.models import ReadoutRNN, build_model
from memrnn.models.fast_weights import Norm
from memrnn.tasks.retrieval import (
    CLASSES,
    SPLIT_SIZES,
    VOCAB_SIZE,
    make_splits,
    splits_file_name,
    splits_from_arrays,
    splits_meta,
    splits_to_arrays,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Model = Literal["fast_weights", "irnn", "lstm", "alstm"]  # registered models (memrnn.models)
MODELS: tuple[Model, ...] = get_args(Model)
# In the order of the paper's rows
MODEL_NAMES = {"irnn": "IRNN", "lstm": "LSTM", "alstm": "A-LSTM", "fast_weights": "Fast weights"}
# Table 1 of the paper: test error (%) by model and R
PAPER: PaperTables = {
    "table1": printed_rows(
        ("R=20", "R=50", "R=100"),
        {
            "IRNN": (62.11, 60.23, 0.34),
            "LSTM": (60.81, 1.85, 0.0),
            "A-LSTM": (60.13, 1.62, 0.0),
            "Fast weights": (1.81, 0.0, 0.0),
        },
    )
}
# Every model at each R and seed; the smoke profile on small splits.
PROFILES: dict[Profile, Grid] = {
    "smoke": Grid(
        {"model": MODELS, "hidden": (8,), "seed": (0,)},
        {
            "steps": 30,
            "eval_every": 10,
            "checkpoint_every": 10,
            "train_size": 500,
            "validation_size": 200,
            "test_size": 200,
        },
    ),
    "quick": Grid({"model": MODELS, "hidden": (20, 50), "seed": (0,)}, {"steps": 30_000}),
    "paper": Grid(
        {"model": MODELS, "hidden": (20, 50, 100), "seed": (0, 1, 2)}, {"steps": 100_000}
    ),
}


@dataclass(frozen=True)
class Ba2016Config(TrainConfig):
    """One associative-retrieval run (the training fields come from ``TrainConfig``).

    Attributes:
        model: "fast_weights", "irnn", "lstm" or "alstm".
        hidden: R, the recurrent units.
        pairs: key-value pairs per example (4: ``c9k8j3f1??c``).
        decay, fast_lr, inner_steps: lambda, eta and S of the fast weights.
        norm: where the fast weights' layer normalisation sits ("sum": the paper).
        recurrent_scale: the recurrent matrix starts as this times the identity
            (fast weights and IRNN only).
        readout: units of the hidden ReLU layer before the softmax.
        data_seed: seeds the splits, shared by every run of a profile.
        train_size, validation_size, test_size: examples per split.
    """

    steps: int = 30_000
    batch_size: int = 128
    lr: float = 1e-3
    clip: float = 5.0
    eval_every: int = 1000
    checkpoint_every: int = 1000
    monitor: str = "val_error"
    monitor_mode: MonitorMode = "min"
    model: Model = "fast_weights"
    hidden: int = 20
    pairs: int = 4
    decay: float = 0.95
    fast_lr: float = 0.5
    inner_steps: int = 1
    norm: Norm = "sum"
    recurrent_scale: float = 0.05
    readout: int = 100
    data_seed: int = 0
    train_size: int = SPLIT_SIZES[0]
    validation_size: int = SPLIT_SIZES[1]
    test_size: int = SPLIT_SIZES[2]

    def validate(self) -> None:
        super().validate()
        self.require_positive("hidden", "pairs", "inner_steps", "readout")
        self.require_positive("train_size", "validation_size", "test_size")

    def model_options(self) -> dict[str, Any]:
        """The encoder's own settings."""
        if self.model == "fast_weights":
            return {
                "decay": self.decay,
                "fast_lr": self.fast_lr,
                "inner_steps": self.inner_steps,
                "recurrent_scale": self.recurrent_scale,
                "norm": self.norm,
            }
        if self.model == "irnn":
            return {"recurrent_scale": self.recurrent_scale}
        return {}


class RetrievalRun:
    """One run: a model with the paper's readout and the splits it trains and is scored on,
    kept under ``data`` (made in memory when it is None)."""

    def __init__(self, config: Ba2016Config, device: torch.device, data: Path | None) -> None:
        self.config, self.device = config, device
        sizes = (config.train_size, config.validation_size, config.test_size)
        if data is not None:
            seed, pairs = config.data_seed, config.pairs
            splits = load_or_make(
                data / "retrieval" / splits_file_name(seed, pairs, sizes),
                splits_meta(seed, pairs, sizes),
                lambda: make_splits(seed, pairs, sizes),
                "retrieval splits",
                to_arrays=splits_to_arrays,
                from_arrays=lambda arrays: splits_from_arrays(arrays, seed, pairs),
            )
        else:
            splits = make_splits(config.data_seed, config.pairs, sizes)
        self.train, self.validation, self.test = (
            tuple(torch.from_numpy(a).to(device) for a in split)
            for split in (splits.train, splits.validation, splits.test)
        )
        model = build_model(
            config.model, VOCAB_SIZE, CLASSES, hidden_size=config.hidden, readout=config.readout,
            **config.model_options(),
        )  # fmt: skip
        assert isinstance(model, ReadoutRNN)
        self.model = model.to(device)

    def training_batch(self, rng: np.random.Generator) -> tuple[Tensor, Tensor]:
        rows = torch.from_numpy(rng.integers(0, len(self.train[0]), self.config.batch_size))
        rows = rows.to(self.device)
        return self.train[0][rows], self.train[1][rows]

    def loss(self, batch: tuple[Tensor, Tensor]) -> Tensor:
        inputs, targets = batch
        return F.cross_entropy(self.model.last_step(inputs), targets)

    def _score(self, split: tuple[Tensor, ...]) -> tuple[float, float]:
        """Error rate and mean cross-entropy over a whole split, in chunks."""
        wrong, total_loss = 0, 0.0
        for lo in range(0, len(split[0]), 5000):
            inputs, targets = split[0][lo : lo + 5000], split[1][lo : lo + 5000]
            scores = self.model.last_step(inputs)
            wrong += int((scores.argmax(dim=1) != targets).sum())
            total_loss += float(F.cross_entropy(scores, targets, reduction="sum"))
        return wrong / len(split[0]), total_loss / len(split[0])

    def evaluate(self, rng: np.random.Generator) -> dict[str, float]:
        val_error, val_loss = self._score(self.validation)
        test_error, _ = self._score(self.test)
        return {"val_error": val_error, "val_loss": val_loss, "test_error": test_error}

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"parameters": sum(p.numel() for p in self.model.parameters())}


class Ba2016(TrainedExperiment[Ba2016Config]):
    name = "ba2016"
    title = "Fast weights on associative retrieval, against IRNN, LSTM and A-LSTM"
    reproduces = "Ba et al. (2016), Using Fast Weights to Attend to the Recent Past: Table 1"
    config_type = Ba2016Config

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            PROFILES[profile],
            name="{model}/R{hidden}/seed{seed}",
            labels=lambda c: (MODEL_NAMES[c.model], f"retrieval-R{c.hidden}"),
            settings=lambda point: {"recurrent_scale": 1.0 if point["model"] == "irnn" else 0.05},
        )

    def build(self, config: Ba2016Config, context: RunContext) -> RetrievalRun:
        return RetrievalRun(config, context.device, context.data)

    def scale(self, profile: Profile) -> str:
        c = Ba2016Config()
        points = PROFILES[profile].points()
        hidden = sorted({point["hidden"] for point in points})
        seeds = len({point["seed"] for point in points})
        steps = PROFILES[profile].settings["steps"]
        return (
            f"R in {hidden}, {seeds} seed(s) per cell, {steps:,} Adam "
            f"steps (lr {c.lr}, batch {c.batch_size}, gradient norm clipped at {c.clip}); "
            f"fast weights with lambda {c.decay}, eta {c.fast_lr}, S {c.inner_steps}, "
            f"W = {c.recurrent_scale} I and the layer normalisation over the whole sum (the "
            f"paper's equation); IRNN W = I; readout {c.readout} ReLU units. The test error "
            "is the final model's."
        )

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        rows: dict[str, dict[str, Cell]] = {}
        for model, by_hidden in _cells(records).items():
            label = MODEL_NAMES[model]
            rows[label] = {
                f"R={hidden}": mean_cell(
                    runs,
                    "test_error",
                    paper=paper_number(PAPER, "table1", label, f"R={hidden}"),
                    scale=100,
                    spread=True,
                )
                for hidden, runs in by_hidden.items()
            }
        columns = sorted({c for row in rows.values() for c in row}, key=lambda c: int(c[2:]))
        return [
            Table(
                "table1",
                "Test error (%) on associative retrieval by model and number of recurrent "
                "units R (Table 1), mean over seeds",
                columns,
                rows,
            )
        ]

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        lines = []
        for model, by_hidden in _cells(records).items():
            parts = [
                f"R={hidden}: {mean_std(metric(runs, 'test_error'), 100)[0]:.2f}%"
                for hidden, runs in by_hidden.items()
            ]
            lines.append(f"{MODEL_NAMES[model]} test error: " + ", ".join(parts) + ".")
        return lines

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        from matplotlib.figure import Figure

        cells = _cells(records)
        hiddens = sorted({h for by_hidden in cells.values() for h in by_hidden})
        if not hiddens:
            return {}
        figure = Figure(figsize=(4 * len(hiddens), 3.2), layout="constrained")
        grid = figure.subplots(1, len(hiddens), squeeze=False)[0]
        for axes, hidden in zip(grid, hiddens, strict=True):
            for model, by_hidden in cells.items():
                for r in by_hidden.get(hidden, []):
                    steps, errors = curve(r, "val_error")
                    if steps:
                        axes.plot(steps, 100 * np.array(errors), label=MODEL_NAMES[model])
            axes.set_title(f"R = {hidden}")
            axes.set_xlabel("Adam steps")
            axes.set_ylabel("validation error (%)")
            axes.set_ylim(-2, 100)
            axes.legend(fontsize=7)
        return {"learning-curves": figure}


def _cells(records: Sequence[RunRecord]) -> dict[str, dict[int, list[RunRecord]]]:
    """Runs by model (in the paper's order) and R, each cell's by seed."""
    cells: dict[str, dict[int, list[RunRecord]]] = {}
    for (model, hidden), runs in group(records, "model", "hidden").items():
        cells.setdefault(model, {})[hidden] = runs
    return in_order(cells, MODEL_NAMES)
