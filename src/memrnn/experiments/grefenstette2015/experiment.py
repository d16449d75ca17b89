"""The experiment: Figure 2a's runs per profile, each built as a ``TransductionRun``, and
its report (the table, the findings, the figures)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import torch

from memrnn.experiments.base import Profile, RunContext, RunRecord, RunSpec, TrainedExperiment
from memrnn.experiments.grefenstette2015 import figures, report, scale
from memrnn.experiments.grefenstette2015.config import MODEL_NAMES, Grefenstette2015Config
from memrnn.experiments.grefenstette2015.profiles import PROFILES, run_name, start_settings
from memrnn.experiments.grefenstette2015.run import TransductionRun
from memrnn.experiments.grid import grid_runs
from memrnn.experiments.tables import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _on_gpu(device: str) -> bool:
    """Whether a run with the config's ``device`` trains on a GPU ("auto": when one is
    present)."""
    return device.startswith("cuda") or (device == "auto" and torch.cuda.is_available())


class Grefenstette2015(TrainedExperiment[Grefenstette2015Config]):
    name = "grefenstette2015"
    title = "Stack-, Queue- and DeQue-LSTMs against Deep LSTMs on transduction tasks"
    reproduces = (
        "Grefenstette et al. (2015), Learning to Transduce with Unbounded Memory: Figure 2a"
    )
    config_type = Grefenstette2015Config
    metrics = (
        "curriculum",
        "curriculum_coarse",
        "train_coarse",
        "train_fine",
        "test_coarse",
        "test_fine",
    )

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            PROFILES[profile],
            name=run_name,
            labels=lambda c: (MODEL_NAMES[c.model], c.task),
            settings=start_settings,
        )

    def group_key(self, config: Grefenstette2015Config) -> Hashable | None:
        """Memory-augmented runs that differ only in seed or rate train as one batched
        model on a GPU, where a step waits on kernel launches that a group shares. Not on
        a CPU: there these runs' steps are their arithmetic, which grouping does not share
        (five Stack-LSTMs of the paper's hidden 256 as one group trained at 0.59 times the
        speed of the five one after another; see ``benchmarks/batched_runs.py``). Never
        the Deep LSTM (``nn.LSTM`` does not stack), nor runs with gate noise (drawn from
        torch's one generator, which members cannot share)."""
        stacks = config.model != "lstm" and config.gate_noise == 0
        return config.group_key() if stacks and _on_gpu(config.device) else None

    def build(self, config: Grefenstette2015Config, context: RunContext) -> TransductionRun:
        return TransductionRun(config, context.device)

    def scale(self, profile: Profile) -> str:
        return scale.describe(profile)

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return [report.figure2a(records)]

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        return report.findings(records)

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        return figures.draw(records)
