"""``Matrix``, the experiment the registry finds: every model on every task it reads."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from memrnn.experiments.base import (
    Profile,
    RunContext,
    RunOutput,
    RunRecord,
    RunSpec,
    TrainedExperiment,
)
from memrnn.experiments.grid import grid_runs
from memrnn.experiments.matrix.config import MatrixConfig
from memrnn.experiments.matrix.deletang2023 import level_findings, runs_spread, table2
from memrnn.experiments.matrix.figures import heatmap, length_curves
from memrnn.experiments.matrix.findings import report_findings
from memrnn.experiments.matrix.memory_use import memory_findings
from memrnn.experiments.matrix.profiles import SCALES, grid, task_settings
from memrnn.experiments.matrix.run import (
    CellSteps,
    can_group,
    cell_steps,
    fitted_cell,
    make_cell_task,
    model_options,
    scored,
)
from memrnn.experiments.matrix.tables import score_tables
from memrnn.experiments.profiles import ALL_PROFILES
from memrnn.experiments.tables import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def laptop_limits() -> str:
    """What the laptop profile cannot show, from its scale beside the paper profile's."""
    laptop, paper = SCALES["laptop"], SCALES["paper"]
    small, big = laptop.settings, paper.settings
    return (
        f" The laptop profile runs their five architectures on their {len(laptop.tasks)} "
        f"tasks with their training lengths (1-{small['train_max']}); it cannot show what "
        f"their scale would: {big['steps'] // small['steps']:,} times fewer steps, batches "
        f"of {small['batch_size']} against {big['batch_size']}, {len(laptop.seeds)} seeds "
        f"x {len(laptop.lrs)} rate(s) against {len(paper.seeds)} x {len(paper.lrs)}, width "
        f"{small['hidden_size']} against {big['hidden_size']}, and test lengths up to "
        f"{laptop.test_max}, not {paper.test_max}. A model that solves a task here may "
        f"still fail beyond {laptop.test_max}; one that fails here may solve it with "
        "their steps."
    )


class Matrix(TrainedExperiment[MatrixConfig]):
    """Every registered model on every registered task it can read, trained on lengths up
    to N and scored on the longer ones, side by side (the Stack-, Queue- and DeQue-LSTM of
    Grefenstette et al. 2015, the Fast Weights RNN of Ba et al. 2016, the superposition
    Stack-RNN of Joulin and Mikolov 2015, the recurrent baselines and a Transformer, on
    the tasks of Delétang et al. 2023 and of the papers memrnn reproduces).

    A run trains by the runner's training loop, checkpointed like every run, and cells of
    one seed at several rates share their batches when they train as a group; the
    reservoir models of Paassen et al. (2021) are fitted in closed form instead
    (``fitted``).
    """

    name = "matrix"
    title = "The generalisation matrix: every model on every task, tested on longer inputs"
    reproduces = (
        "the protocol of Delétang et al. (2023), Neural Networks and the Chomsky Hierarchy, "
        "section 4 (range evaluation beyond the training lengths), across memrnn's models"
    )
    config_type = MatrixConfig
    metrics = ("loss", "train_accuracy", "train_token_accuracy", "train_score")
    shares_batches = True
    profiles = ALL_PROFILES

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            grid(profile),
            name="{model}/{task}/lr{lr}/seed{seed}",
            labels=lambda c: (c.model, c.task),
            settings=task_settings(profile),
        )

    def build(self, config: MatrixConfig, context: RunContext) -> CellSteps:
        return cell_steps(config, context.device)

    def fitted(self, config: MatrixConfig, context: RunContext) -> RunOutput | None:
        return fitted_cell(config)

    def finished(self, config: MatrixConfig, output: RunOutput) -> RunOutput:
        return scored(config, output)

    def group_key(self, config: MatrixConfig) -> Hashable | None:
        """Cells that differ only in seed and learning rate, of a model that stacks, whose
        models are built with the same options: a Stack-RNN's depth follows the longest
        test sequence its seed draws (``model_options``), and members must share it."""
        key = config.group_key() if can_group(config.model, config.task) else None
        if key is None:
            return None
        return key, tuple(sorted(model_options(config, make_cell_task(config)).items()))

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        beside = [table2(records), runs_spread(records)]
        return score_tables(records) + [table for table in beside if table is not None]

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        return report_findings(records) + level_findings(records) + memory_findings(records)

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        made = {"heatmap": heatmap(records), "accuracy-by-length": length_curves(records)}
        return {name: figure for name, figure in made.items() if figure is not None}

    def scale(self, profile: Profile) -> str:
        s = SCALES[profile]
        settings = s.settings
        return (
            f"{len(s.models)} models x {len(s.tasks)} tasks (those a model can read), "
            f"learning rates {list(s.lrs)}, seeds {list(s.seeds)}: Adam, "
            f"{settings['steps']:,} steps of batch {settings['batch_size']}, hidden size "
            f"{settings['hidden_size']}; training lengths up to N = {settings['train_max']}, "
            f"every length up to {s.test_max} evaluated ({settings['eval_size']} sequences "
            f"per pair of lengths). Delétang et al. (2023) train on lengths 1-40 and test "
            "41-500, 1,000,000 steps of batch 128, rates {1e-4, 3e-4, 5e-4}, 10 seeds, "
            "hidden size 256 (the paper profile). The rate of each (model, task, seed) is "
            "chosen on the training lengths, never the test lengths. The ESN and the "
            "reservoir stack machine (Paassen et al. 2021; LDN reservoir of 256 neurons) "
            "are fitted on 100 sequences of the training lengths of each task that gives "
            "stack actions, with the estimators' default hyperparameters: Paassen et al. "
            "chose theirs by a random search scored on test lengths, which this protocol "
            "does not allow."
        ) + (laptop_limits() if profile == "laptop" else "")
