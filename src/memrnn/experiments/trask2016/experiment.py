"""The experiment ``trask2016``: every variant over seeds, trained on the reversal, set
beside what the tutorial printed."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from memrnn.experiments.base import Profile, RunContext, RunRecord, RunSpec, TrainedExperiment
from memrnn.experiments.grid import grid_runs
from memrnn.experiments.tables import Table
from memrnn.experiments.trask2016.config import PROFILES, Trask2016Config
from memrnn.experiments.trask2016.figures import report_figures
from memrnn.experiments.trask2016.gates import GATE_COLUMNS
from memrnn.experiments.trask2016.paper import TUTORIAL_SCALE
from memrnn.experiments.trask2016.run import ReversalRun
from memrnn.experiments.trask2016.tables import report_findings, report_tables
from memrnn.experiments.trask2016.variants import VARIANTS

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Trask2016(TrainedExperiment[Trask2016Config]):
    """Trask (2016)'s stack RNN learning to reverse, in its three starts (``VARIANTS``),
    each over seeds; whether each seed uses its stack is measured (``stack_use``)."""

    name = "trask2016"
    title = "A neural stack learns to reverse sequences, or fails to use its stack"
    reproduces = (
        "Trask (2016), Hacking DeepMind's Neural Stack: the naive controller that pops 'half "
        "at a time', and its fix (push bias +1, pop bias -1 and an autoencoder side task); "
        "and the pop bias alone of Grefenstette et al. (2015), Appendix B"
    )
    config_type = Trask2016Config
    metrics = (
        "loss",
        "train_token_acc",
        "train_seq_acc",
        "long_token_acc",
        "long_seq_acc",
        *GATE_COLUMNS,
    )
    reference = "tutorial"

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            PROFILES[profile],
            name="{variant}/seed{seed}",
            labels=lambda c: (f"{c.cell.upper()}+Stack", "reversal"),
            settings=lambda point: dataclasses.asdict(VARIANTS[point["variant"]]),
        )

    def group_key(self, config: Trask2016Config) -> Hashable | None:
        """Seeds of one variant train as one batched model, but for the autoencoder's,
        whose side task ``memrnn.models.grouped`` does not stack."""
        return None if config.autoencoder else config.group_key()

    def build(self, config: Trask2016Config, context: RunContext) -> ReversalRun:
        return ReversalRun(config, context.device)

    def scale(self, profile: Profile) -> str:
        grid = PROFILES[profile]
        s = {**Trask2016Config().to_dict(), **grid.settings}
        seeds = len({point["seed"] for point in grid.points()})
        ours = (
            f"{seeds} seed{'s' if seeds > 1 else ''} per variant; {s['steps']} steps of "
            f"{s['batch_size']} sequences, lengths {s['min_length']}-{s['max_length']} over "
            f"{s['vocab_size']} symbols, RNN of {s['hidden_size']} units, stack width "
            f"{s['memory_width']}, {s['optimizer']} lr {s['lr']} on cross-entropy (the side "
            f"task on squared error); generalisation at length {s['long_length']}."
        )
        if profile == "smoke":  # a test of the pipeline, set beside nothing of the tutorial's
            return ours
        return f"{ours} {TUTORIAL_SCALE}"

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return report_tables(records)

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        return report_findings(records)

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        return report_figures(records)
