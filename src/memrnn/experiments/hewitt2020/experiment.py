"""hewitt2020 as an experiment: its runs per profile, one run carried out (a construction
verified or a language model trained), and its report."""

from __future__ import annotations

import time
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
from memrnn.experiments.hewitt2020.config import Hewitt2020Config
from memrnn.experiments.hewitt2020.constructions import verify_construction
from memrnn.experiments.hewitt2020.figures import report_figures
from memrnn.experiments.hewitt2020.findings import report_findings
from memrnn.experiments.hewitt2020.language_model import train_language_model
from memrnn.experiments.hewitt2020.paper import LM_SEEDS
from memrnn.experiments.hewitt2020.profiles import (
    DFA_BOUND,
    PROFILES,
    QUICK_M1_LAST,
    SMOKE_DFA_LAST,
    SWEEP_BOUND,
    coordinates,
    run_name,
)
from memrnn.experiments.hewitt2020.tables import report_tables
from memrnn.experiments.tables import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Hewitt2020(FittedExperiment[Hewitt2020Config]):
    name = "hewitt2020"
    title = "Dyck-(k,m): hand-built generators and LSTM language models"
    reproduces = (
        "Hewitt et al. (2020): Theorems 1-5 checked on their constructions, and the "
        "bracket-closing results of section 8 (Figure 3)"
    )
    config_type = Hewitt2020Config

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            PROFILES[profile],
            name=run_name,
            labels=lambda c: (c.part, f"k{c.k}-m{c.m}"),
            settings=coordinates,
        )

    def fit_run(self, config: Hewitt2020Config, context: RunContext) -> RunOutput:
        started = time.perf_counter()
        if config.part == "construction":
            metrics, artifacts = verify_construction(config, context.device)
            return RunOutput(metrics, [], artifacts, 0, time.perf_counter() - started)
        metrics, artifacts, history = train_language_model(
            config, context.data, context.checkpoint, context.resume
        )
        steps = history[-1][0] if history else 0
        return RunOutput(metrics, history, artifacts, steps, time.perf_counter() - started)

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return report_tables(records)

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        return report_findings(records)

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        return report_figures(records)

    def scale(self, profile: Profile) -> str:
        if profile == "smoke":
            lm = next(spec.config for spec in self.runs(profile) if spec.config["part"] == "lm")
            return (
                "smoke: the four efficient constructions verified exhaustively on Dyck-(2,2), "
                f"Theorem 1's on Dyck-(k,1) for k = 2..{SMOKE_DFA_LAST}, and one LSTM (seed 0) "
                f"trained for at most {lm['max_epochs']} epochs on {lm['train_tokens']} "
                f"tokens of Dyck-({lm['k']},{lm['m']}) (dev {lm['dev_tokens']}, test "
                f"{lm['test_tokens']} tokens). It checks that the runs and the report work; its "
                "numbers are not results and nothing here is compared with the paper."
            )
        if profile == "quick":
            return (
                f"constructions verified exhaustively on every k^m <= {SWEEP_BOUND} with m >= 2 "
                f"and m = 1 up to k = {QUICK_M1_LAST} (Theorem 1's: k^(m+1) <= {DFA_BOUND}), "
                "and by 10,000-step walks (1,000 for the one-hot codes at k = 1000) on (128,5), "
                "(64,10), (1000,3); LSTMs "
                f"for k in {{2, 8}}, m = 3, 2e4 and 2e5 training tokens, {LM_SEEDS} seeds each "
                "on shared splits (the paper: k up to 128, m in {3, 5}, up to 2e7 tokens)"
            )
        if profile == "paper":
            return (
                f"the paper's LSTM grid ({LM_SEEDS} seeds per cell on shared splits) and the "
                f"exhaustive sweep over every k^m <= {SWEEP_BOUND}"
            )
        return super().scale(profile)
