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

import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from memrnn import __version__
from memrnn.cli.selection import (
    Candidate,
    Split,
    candidate_seed,
    choose,
    gate_blur,
    hold_out_longest,
    selection_record,
    selection_table,
)
from memrnn.cli.stored import train_into
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
from memrnn.models.saving import SavedModel, save_model
from memrnn.runner.train import Progress, check_config
from memrnn.tasks.base import TaskBatch
from memrnn.tasks.text_pairs import TextPair, TextPairsTask, check_tokens, read_pairs
from memrnn.tasks.text_pairs_decoding import score_pairs
from memrnn.validation import check_int

EXPERIMENT = "fit"  # the experiment name of these runs in a results store
PROFILE = "own"  # their profile: the user's own data, not one of an experiment's profiles


@dataclass(frozen=True)
class FitConfig(TrainConfig):
    """The settings of a run on a pairs file: ``TrainConfig``'s, with the recipe of the
    Quick start as their defaults (AdamW at 0.01 with weight decay 0.1, batches of 32)
    and 3,000 steps (on the own-data battery, a Stack-LSTM trained on reversals of 1-8
    symbols over 4 letters reversed 9-16 symbols exactly 97-100% of the time after 3,000
    steps, 3-34% after 1,000: ``docs/length-generalisation.md``); and

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


DEFAULT_MODELS = ("stack_lstm", "queue_lstm", "deque_lstm")
# Build options each model takes unless the user's options say otherwise. Gate noise
# (Grefenstette et al.'s quick profile here) makes a leaky push or pop cost loss at the
# training lengths, so training drives the gates to 0 and 1: a Queue-LSTM copying 1-8
# symbols over 6 letters copied 9-16 exactly 100% of the time with it, 41-48% without
# (docs/length-generalisation.md).
MODEL_DEFAULTS: dict[str, dict[str, Any]] = {
    "queue_lstm": {"gate_noise": 1.0},
    "deque_lstm": {"gate_noise": 1.0},
}
DEFAULT_RESTARTS = 2
MAX_RESTARTS = 100
TRAIN_SCORED = 200  # training pairs each candidate is scored on


def _sha256(path: str | os.PathLike[str] | None) -> str:
    return "" if path is None else hashlib.sha256(Path(path).read_bytes()).hexdigest()


@dataclass(frozen=True)
class FitPlan:
    """What ``memrnn fit`` will train, checked before anything is trained or written.

    Attributes:
        experiment: the pairs trained on (``split.train``) and evaluated on (the held-out
            pairs, or the ``--valid`` file's).
        candidates: each candidate's checked config and run.
        split: the training file split into the pairs trained on and those held out.
        held_out: what the candidates are chosen on, in words.
    """

    experiment: FitExperiment
    candidates: tuple[tuple[FitConfig, RunSpec], ...]
    split: Split
    held_out: str


def fit_plan(
    pairs: str | os.PathLike[str],
    valid: str | os.PathLike[str] | None,
    models: Sequence[str],
    model_options: Mapping[str, Any] | None,
    settings: Mapping[str, Any],
    tokens: str = "words",
    restarts: int = DEFAULT_RESTARTS,
) -> FitPlan:
    """The candidates of training ``models`` (``restarts`` runs of each) on the file
    ``pairs`` split into ``tokens``, chosen on ``valid`` if given, else on the pairs of
    the longest sources (:func:`hold_out_longest`), which are then not trained on.
    Everything is checked here, before any training or file is made: the files, the
    settings, and each model's build options (each model is built once and thrown away).
    """
    tokenisation = check_tokens(tokens)
    try:
        check_int("restarts", restarts, 1, MAX_RESTARTS)
    except ValueError as error:
        raise UserError(str(error)) from None
    if not models:
        raise UserError("models: expected at least one model")
    read = read_pairs(pairs, tokenisation)
    whole = TextPairsTask.from_pairs(read, tokenisation)
    checked = read_pairs(valid, tokenisation) if valid is not None else ()
    split = hold_out_longest(read) if valid is None else Split(tuple(read), (), "")
    train = TextPairsTask(
        whole.source_words, whole.target_words,
        (min(len(p.source) for p in split.train), max(len(p.source) for p in split.train)),
        whole.longest_target, split.train, tokenisation,
    )  # fmt: skip
    evaluated = checked or split.held_out
    experiment = FitExperiment(train, evaluated)
    if valid is not None:
        held_out = f"{valid} ({len(checked)} pairs)"
    elif split.held_out:
        held_out = f"{split.description}, not trained on"
    else:
        held_out = f"{split.description}; chosen on training pairs"
    data = {
        "tokens": tokenisation,
        "pairs_sha256": _sha256(pairs),
        "valid_sha256": _sha256(valid),
    }
    known = [
        f.name
        for f in dataclasses.fields(FitConfig)
        if f.name not in {*data, "model", "model_options"}
    ]
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise UserError(f"unknown setting {unknown[0]}; the settings are {', '.join(known)}")
    seed = int(settings.get("seed", FitConfig.seed))
    models = list(dict.fromkeys(models))  # each model once, in the order given
    candidates = []
    for restart in range(restarts):  # every model's first run, then every second ...
        for model in models:
            options = {**MODEL_DEFAULTS.get(model, {}), **(model_options or {})}
            given = {**settings, "seed": candidate_seed(seed, restart)}
            built = {"model": model, "model_options": json.dumps(options, sort_keys=True)}
            config = FitConfig(**{**given, **data, **built})
            check_config(experiment, config)
            spec = RunSpec(
                EXPERIMENT, Path(pairs).name, PROFILE, config.to_dict(), model, "text_pairs"
            )
            candidates.append((config, spec))
    for config, _ in candidates[: len(models)]:
        try:
            with torch.random.fork_rng(devices=[]):  # the runs' own weights are drawn later
                build_model_for(config.model, train, **config.options())
        except (ValueError, TypeError) as error:
            raise UserError(f"model options: {error}") from None
    return FitPlan(experiment, tuple(candidates), split, held_out)


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
        settings: ``FitConfig`` fields: ``steps``, ``seed``, ``batch_size``, ``lr``, ...

    Returns:
        The chosen model (in eval mode, on the run's device), its task and options.

    Raises:
        UserError: (a ValueError) a mistake in a file (named with its line), an unknown
            model or setting, a bad value, a folder another process works in.
    """
    models = [model] if isinstance(model, str) else list(model)
    plan = fit_plan(pairs, valid, models, model_options, settings, tokens, restarts)
    saved, _ = fit_candidates(Path(out), plan, resume=resume, quiet=quiet,
                              on_progress=on_progress)  # fmt: skip
    return saved


def fit_candidates(
    out: Path,
    plan: FitPlan,
    *,
    resume: bool,
    quiet: bool,
    on_progress: Callable[[Progress], None] | None = None,
    tensorboard: Path | None = None,
) -> tuple[SavedModel, list[Candidate]]:
    """Train the candidates of ``plan`` in turn in ``out`` (each one run of its results
    store, with its checkpoint), score each on its training pairs and the held-out pairs,
    save the best (:func:`~memrnn.cli.selection.choose`) in ``out`` with the record of
    the choice, and show the candidates' table on stderr unless ``quiet``. The first
    candidate that decodes every held-out pair exactly with gates at 0 or 1 ends the
    search (``Candidate.settles``)."""
    from memrnn.cli.progress import progress_bar

    experiment, task = plan.experiment, plan.experiment.task
    drawn = np.random.default_rng(0).permutation(len(task.pairs))[:TRAIN_SCORED]
    scored = [task.pairs[i] for i in sorted(drawn)]
    candidates: list[Candidate] = []
    models: list[nn.Module] = []
    for i, (config, spec) in enumerate(plan.candidates):
        restart = i // len({c.model for c, _ in plan.candidates})
        with progress_bar(config.steps, quiet, tensorboard and tensorboard / spec.key) as bar:

            def start(config: FitConfig = config, bar: Any = bar, i: int = i) -> None:
                if not quiet:
                    print(f"candidate {i + 1} of {len(plan.candidates)}: {config.model}, "
                          f"seed {config.seed}", file=sys.stderr)  # fmt: skip
                bar.start()

            def progress(p: Progress, bar: Any = bar) -> None:
                bar.show(p)
                if on_progress is not None:
                    on_progress(p)

            output = train_into(
                out, experiment, spec, config, data=None, resume=resume, on_start=start,
                on_progress=progress,
            )  # fmt: skip
        if experiment.steps is None:
            raise RuntimeError("the runner returned without building the run")
        trained = experiment.steps.model.eval()
        held = output.metrics if plan.split.held_out or experiment.valid else None
        if held is None:  # nothing held out: chosen on the training pairs
            held = score_pairs(task, trained, scored)
        candidates.append(Candidate(
            config.model, restart, config.seed,
            score_pairs(task, trained, scored)["sequence_accuracy"],
            held["sequence_accuracy"], held["token_accuracy"], held["loss"],
            gate_blur(task, trained, experiment.valid or scored),
            round(output.wall_seconds, 1),
        ))  # fmt: skip
        models.append(trained)
        if candidates[-1].settles():
            break
    chosen = choose(candidates)
    config = plan.candidates[chosen][0]
    record = selection_record(candidates, chosen, plan.held_out, len(plan.candidates))
    save_model(out, models[chosen], task=task, selection=record)
    if not quiet:
        print(selection_table(candidates, chosen, plan.held_out, len(plan.candidates)),
              file=sys.stderr)  # fmt: skip
    saved = SavedModel(models[chosen], config.model, config.options(), task, task.options(),
                       __version__, record)  # fmt: skip
    return saved, candidates
