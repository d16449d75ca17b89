"""The experiment as the runner sees it: its runs per profile, one run carried out, its
tables, findings and figure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memrnn.experiments.base import (
    FittedExperiment,
    Profile,
    RunContext,
    RunOutput,
    RunRecord,
    RunSpec,
)
from memrnn.experiments.grid import grid_runs
from memrnn.experiments.paassen2021 import findings, profiles, tables
from memrnn.experiments.paassen2021.config import Paassen2021Config, row_label
from memrnn.experiments.paassen2021.figures import figure2
from memrnn.experiments.paassen2021.run import carry_out
from memrnn.experiments.tables import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Paassen2021(FittedExperiment[Paassen2021Config]):
    name = "paassen2021"
    title = "Reservoir stack machines against ESNs and deep baselines on nine benchmarks"
    reproduces = (
        "Paassen, Schulz, Hammer (2021), Tables 2-5 (test MAE and runtime of nine models "
        "on latch, copy, repeat copy and six LR(1) languages), Tables 6-7 of Appendix A "
        "(the three ESNs with 1024 neurons) and Figure 2"
    )
    config_type = Paassen2021Config

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            profiles.PROFILES[profile],
            name=lambda point, c: f"{row_label(c.model, point['large'])}/{c.task}/seed{c.seed}",
            labels=lambda c: (c.model, c.task),
            settings=lambda point: profiles.settings(profile, point),
        )

    def fit_run(self, config: Paassen2021Config, context: RunContext) -> RunOutput:
        return carry_out(config)

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return tables.tables(records)

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        return findings.findings(records)

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        return {"figure2": figure2()}

    def scale(self, profile: Profile) -> str:
        return profiles.scale(profile)
