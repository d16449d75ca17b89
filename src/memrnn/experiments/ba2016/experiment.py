"""The experiment ``ba2016``: Table 1 of Ba et al. (2016), every model at each R."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memrnn.experiments.ba2016.config import COMPILED, PROFILES, Ba2016Config
from memrnn.experiments.ba2016.figures import learning_curves
from memrnn.experiments.ba2016.paper import MODEL_NAMES
from memrnn.experiments.ba2016.run import RetrievalRun
from memrnn.experiments.ba2016.tables import report_findings, table1
from memrnn.experiments.base import Profile, RunContext, RunRecord, RunSpec, TrainedExperiment
from memrnn.experiments.grid import grid_runs
from memrnn.experiments.tables import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Ba2016(TrainedExperiment[Ba2016Config]):
    """The Fast Weights RNN, an IRNN, an LSTM and an A-LSTM on associative retrieval, at
    each number of recurrent units R, over seeds: Ba et al. (2016), Table 1."""

    name = "ba2016"
    title = "Fast weights on associative retrieval, against IRNN, LSTM and A-LSTM"
    reproduces = "Ba et al. (2016), Using Fast Weights to Attend to the Recent Past: Table 1"
    config_type = Ba2016Config
    metrics = ("val_error", "val_loss", "test_error")

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
        names = [MODEL_NAMES[m] for m in COMPILED]
        compiled = (
            " Training steps compiled by torch.compile where a C++ compiler is found "
            f"(rounded differently from the eager step; each run's config records it): "
            f"{', '.join(names)}."
            if "compiled" in PROFILES[profile].axes
            else ""
        )
        return (
            f"R in {hidden}, {seeds} seed(s) per cell, {steps:,} Adam "
            f"steps (lr {c.lr}, batch {c.batch_size}, gradient norm clipped at {c.clip}); "
            f"fast weights with lambda {c.decay}, eta {c.fast_lr}, S {c.inner_steps}, "
            f"W = {c.recurrent_scale} I and the layer normalisation over the whole sum (the "
            f"paper's equation); IRNN W = I; readout {c.readout} ReLU units. The test error "
            "is the final model's." + compiled
        )

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return [table1(records)]

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        return report_findings(records)

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        figure = learning_curves(records)
        return {} if figure is None else {"learning-curves": figure}
