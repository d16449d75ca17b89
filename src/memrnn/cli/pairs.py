"""Training a registered model on your own pairs file, from Python or from ``memrnn fit``.

:func:`train_on_pairs` trains in an output folder the way ``memrnn train`` trains an
experiment's run: the runner's training loop (seeded; checkpointed, so that
``resume=True`` continues an interrupted run exactly), the run recorded in the folder's
results store (``store.sqlite``), and at the end the model saved in the folder
(``model.safetensors`` and ``model.json``, :mod:`memrnn.models.saving`), which
``memrnn.models.load_model(folder)``, ``memrnn decode`` and ``memrnn score`` read. It
lives here, beside the command, because a run folder (its lock, store and checkpoints)
is the runner's, and this package is the one above the runner.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "pairs.tsv").write_text("a b\\tb a\\nb\\tb\\n")
>>> saved = train_on_pairs(folder / "pairs.tsv", folder / "run", steps=2, eval_every=0,
...                        model="stack_lstm", restarts=1, model_options={"hidden_size": 4},
...                        quiet=True)
>>> saved.name, saved.task.source_words
('stack_lstm', ('a', 'b'))
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.cli.selection import DEFAULT_MODELS, DEFAULT_RESTARTS
from memrnn.errors import UserError
from memrnn.experiments.base import (
    Profile,
    RunContext,
    RunRecord,
    RunSpec,
    TrainedExperiment,
)
from memrnn.experiments.config import Optimizer, TrainConfig
from memrnn.experiments.tables import Table
from memrnn.models.registry import build_model_for, model_names
from memrnn.models.saving import SavedModel
from memrnn.runner.train import Progress
from memrnn.tasks.base import TaskBatch
from memrnn.tasks.text_pairs import TextPair, TextPairsTask, check_tokens
from memrnn.tasks.text_pairs_decoding import score_pairs

EXPERIMENT = "fit"  # the experiment name of these runs in a results store
PROFILE = "own"  # their profile: the user's own data, not one of an experiment's profiles


@dataclass(frozen=True)
class FitConfig(TrainConfig):
    """The settings of a run on a pairs file: ``TrainConfig``'s, with the recipe of the
    Quick start as their defaults (AdamW at 0.01 with weight decay 0.1, batches of 32)
    and 3,000 steps (on the own-data battery, one Stack-LSTM run reversed 9-16 symbols
    over 4 letters exactly at 0.825 and 0.05 for seeds 0 and 1 after 3,000 steps, at 0.055
    and 0.24 after 1,000; closing brackets at 0.145 and 0.455 against 0.075 and 0.36:
    ``docs/length-generalisation.md``); and

    Attributes:
        model: a registered model that reads token ids.
        model_options: its build options, a JSON object (``build_model``'s keywords).
        eval_size: training pairs each evaluation scores when no validation file is given
            (drawn afresh each time); with one, every validation pair is scored.
        tokens: what a token of the files is, ``"words"`` or ``"chars"``
            (:mod:`memrnn.tasks.text_pairs`).
        pairs_sha256, valid_sha256: the contents of the pairs and validation files, so a
            run's key changes with its data ("" for no validation file).
    """

    steps: int = 3000
    batch_size: int = 32
    optimizer: Optimizer = "adamw"
    lr: float = 0.01
    weight_decay: float = 0.1
    model: str = "stack_lstm"
    model_options: str = "{}"
    eval_size: int = 100
    tokens: str = "words"
    pairs_sha256: str = ""
    valid_sha256: str = ""

    def validate(self) -> None:
        super().validate()
        self.require_positive("eval_size")
        check_tokens(self.tokens)
        if self.model not in model_names("tokens"):
            raise UserError(
                f"model: expected one of the models that read tokens, "
                f"{', '.join(model_names('tokens'))}; got {self.model!r}"
            )
        self.options()

    def options(self) -> dict[str, Any]:
        """``model_options`` as a dict."""
        try:
            options = json.loads(self.model_options)
        except json.JSONDecodeError as error:
            raise ValueError(f"model_options: not JSON ({error})") from None
        if not isinstance(options, dict):
            raise ValueError(f"model_options: expected a JSON object, got {self.model_options}")
        return options


class PairSteps:
    """A run on pairs as the training loop drives it: batches drawn from the pairs, the
    task's loss, and an evaluation by greedy decoding (``score_pairs``)."""

    def __init__(
        self,
        task: TextPairsTask,
        valid: Sequence[TextPair],
        model: nn.Module,
        config: FitConfig,
        device: torch.device,
    ) -> None:
        self.task, self.valid, self._model = task, valid, model
        self.config, self.device = config, device

    @property
    def model(self) -> nn.Module:
        return self._model

    def training_batch(self, rng: np.random.Generator) -> TaskBatch:
        batch = self.task.sample_batch(rng, self.config.batch_size, *self.task.train_lengths)
        return batch.to(self.device)

    def loss(self, batch: TaskBatch) -> Tensor:
        return self.task.loss(self.model(batch.inputs), batch)

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        if self.valid:
            return score_pairs(self.task, self.model, self.valid)
        drawn = rng.integers(0, len(self.task.pairs), size=self.config.eval_size)
        return score_pairs(self.task, self.model, [self.task.pairs[i] for i in drawn])

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"parameters": sum(p.numel() for p in self.model.parameters())}


class FitExperiment(TrainedExperiment[FitConfig]):
    """One pairs file (and validation file) as an experiment of one run, so that the
    runner trains it as it trains every run. It is made per file, never registered:
    it has no profiles and no report."""

    name = EXPERIMENT
    title = "a registered model trained on a pairs file"
    reproduces = "nothing: your own data"
    config_type = FitConfig
    metrics = ("loss", "sequence_accuracy", "token_accuracy", "train_loss")

    def __init__(self, task: TextPairsTask, valid: Sequence[TextPair] = ()) -> None:
        self.task, self.valid = task, tuple(valid)
        for pair in self.valid:  # unknown tokens are named before any training
            task.encode(pair)
        self.steps: PairSteps | None = None

    def runs(self, profile: Profile) -> list[RunSpec]:
        return []

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        return []

    def build(self, config: FitConfig, context: RunContext) -> PairSteps:
        model = build_model_for(config.model, self.task, **config.options()).to(context.device)
        self.steps = PairSteps(self.task, self.valid, model, config, context.device)
        return self.steps


def train_on_pairs(
    pairs: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    model: str | Sequence[str] = DEFAULT_MODELS,
    model_options: Mapping[str, Any] | None = None,
    valid: str | os.PathLike[str] | None = None,
    tokens: str = "words",
    restarts: int = DEFAULT_RESTARTS,
    resume: bool = False,
    quiet: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    force: bool = False,
    **settings: Any,
) -> SavedModel:
    """Train candidates on the pairs file ``pairs`` (``source<TAB>target`` a line,
    :mod:`memrnn.tasks.text_pairs`) in the folder ``out``, keep the one that does best on
    longer sources than it trained on, save it there and return it.

    Each model of ``model`` trains up to ``restarts`` times (seeds ``1000 * seed +
    restart``), every model's first run before any second one, on all but a tenth of
    the pairs; the candidate with the best sequence accuracy on the pairs held out, those
    with the longest sources (:mod:`memrnn.cli.selection`), or on ``valid``, is saved,
    with every candidate's figures in its ``model.json`` (``selection``); among
    candidates equally right, the one whose memory gates are nearest 0 and 1. The first
    candidate that decodes every held-out pair exactly with gates at 0 or 1 ends the
    search.

    Args:
        pairs: the training pairs.
        out: the run folder: results store, checkpoints, saved model.
        model: a registered model that reads tokens (``model_names("tokens")``), or
            several; by default the Stack-, Queue- and DeQue-LSTM.
        model_options: build options for every model (``hidden_size=...``), over
            ``MODEL_DEFAULTS`` (gate noise for the queue and the deque) and the
            registry's small defaults.
        valid: a pairs file to choose on (every pair, by greedy decoding); then every
            pair of ``pairs`` is trained on.
        tokens: what a token of the files is: ``"words"`` (separated by spaces) or
            ``"chars"``.
        restarts: runs of each model, 1 to 100.
        resume: continue each candidate from the folder's checkpoint of it, if any.
        quiet: no progress bar and no table of the candidates (both on stderr).
        on_progress: called after every step of every candidate.
        force: replace a model that an earlier fit saved in ``out`` (without it, or
            ``resume``, such a folder is refused).
        settings: ``FitConfig`` fields: ``steps``, ``seed``, ``batch_size``, ``lr``, ...

    Returns:
        The chosen model (in eval mode, on the run's device), its task and options.

    Raises:
        UserError: (a ValueError) a mistake in a file (named with its line), an unknown
            model or setting, a bad value, a folder another process works in, a folder
            holding a saved model without ``force``.
    """
    from memrnn.cli.candidates import fit_candidates, fit_plan, refuse_saved_model

    models = [model] if isinstance(model, str) else list(model)
    plan = fit_plan(pairs, valid, models, model_options, settings, tokens, restarts)
    refuse_saved_model(Path(out), force or resume)
    saved, _ = fit_candidates(Path(out), plan, resume=resume, quiet=quiet,
                              on_progress=on_progress)  # fmt: skip
    return saved
