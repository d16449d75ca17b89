"""The candidates of ``memrnn fit``: planned and checked before anything is trained,
trained in turn into the output folder, scored, and the best saved with the record of
the choice (:mod:`memrnn.cli.selection` says how it is chosen)."""

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
from torch import nn

from memrnn import __version__
from memrnn.cli.pairs import EXPERIMENT, PROFILE, FitConfig, FitExperiment
from memrnn.cli.selection import (
    DEFAULT_RESTARTS,
    MAX_RESTARTS,
    MODEL_DEFAULTS,
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
from memrnn.experiments.base import RunSpec
from memrnn.models.controller.network import MemoryRNN
from memrnn.models.registry import build_model_for, model_build
from memrnn.models.saving import DESCRIPTION, SavedModel, save_model
from memrnn.runner.train import Progress, check_config
from memrnn.tasks.text_pairs import TextPairsTask, check_tokens, read_pairs
from memrnn.tasks.text_pairs_decoding import score_pairs
from memrnn.validation import check_int

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


def with_rounded_gates(
    config: FitConfig, task: TextPairsTask, model: nn.Module
) -> nn.Module | None:
    """``model`` (trained, in evaluation mode) rebuilt with ``round_gates=True``, so that
    it pushes and pops whole values; None for a model with no gates to round."""
    options = config.options()
    if options.get("round_gates") or not any(isinstance(m, MemoryRNN) for m in model.modules()):
        return None
    try:
        rounded = build_model_for(config.model, task, **{**options, "round_gates": True})
    except (TypeError, ValueError):  # a registered model that does not take the option
        return None
    rounded.load_state_dict(model.state_dict())
    return rounded.to(next(model.parameters()).device).eval()


def refuse_saved_model(out: Path, replace: bool) -> None:
    """A UserError if ``out`` holds a model an earlier fit saved, unless ``replace``."""
    if (out / DESCRIPTION).exists() and not replace:
        raise UserError(
            f"{out} holds a model saved by an earlier fit ({DESCRIPTION}); give --force "
            "(force=True) to replace it, --resume to continue that fit, or another folder"
        )


def fit_candidates(
    out: Path,
    plan: FitPlan,
    *,
    resume: bool,
    quiet: bool,
    on_progress: Callable[[Progress], None] | None = None,
    tensorboard: Path | None = None,
    settle: bool = True,
    on_candidate: Callable[[Candidate, nn.Module, nn.Module | None], None] | None = None,
) -> tuple[SavedModel, list[Candidate]]:
    """Train the candidates of ``plan`` in turn in ``out`` (each one run of its results
    store, with its checkpoint), score each on its training pairs and the held-out pairs,
    save the best (:func:`~memrnn.cli.selection.choose`) in ``out`` with the record of
    the choice, and show the candidates' table on stderr unless ``quiet``. With
    ``settle``, the first candidate that decodes every held-out pair exactly with gates
    at 0 or 1 ends the search (``Candidate.settles``). ``on_candidate`` is told of each
    candidate with its model as trained and with its gates rounded (None where it has
    none to round), for a study of the candidates. Its callers refuse a folder that
    holds a saved model first (:func:`refuse_saved_model`)."""
    from memrnn.cli.progress import progress_bar

    experiment, task = plan.experiment, plan.experiment.task
    drawn = np.random.default_rng(0).permutation(len(task.pairs))[:TRAIN_SCORED]
    scored = [task.pairs[i] for i in sorted(drawn)]
    candidates: list[Candidate] = []
    models: list[nn.Module] = []
    for i, (config, spec) in enumerate(plan.candidates):
        restart = i // len({c.model for c, _ in plan.candidates})
        events = tensorboard / f"{config.model}-{restart}" if tensorboard else None
        with progress_bar(config.steps, quiet, events) as bar:

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
        on_train = score_pairs(task, trained, scored)
        # the last evaluation scored the held-out pairs; with none, chosen on training pairs
        held = output.metrics if experiment.valid else on_train
        blur = gate_blur(task, trained, experiment.valid or scored)
        rounded = with_rounded_gates(config, task, trained)
        soft, sharp = trained, rounded  # both ways, for ``on_candidate``
        if rounded is not None:  # kept where it does as well on the held-out pairs
            on_rounded = score_pairs(task, rounded, experiment.valid or scored)
            if on_rounded["sequence_accuracy"] < held["sequence_accuracy"]:
                rounded = None
            else:
                trained, held = rounded, on_rounded
                on_train = score_pairs(task, rounded, scored) if experiment.valid else held
        candidates.append(Candidate(
            config.model, restart, config.seed, on_train["sequence_accuracy"],
            held["sequence_accuracy"], held["token_accuracy"], held["loss"], blur,
            round(output.wall_seconds, 1), rounded is not None,
        ))  # fmt: skip
        models.append(trained)
        if on_candidate is not None:
            on_candidate(candidates[-1], soft, sharp)
        if settle and candidates[-1].settles():
            break
    chosen = choose(candidates)
    config = plan.candidates[chosen][0]
    record = selection_record(candidates, chosen, plan.held_out, len(plan.candidates))
    save_model(out, models[chosen], task=task, selection=record)
    if not quiet:
        print(selection_table(candidates, chosen, plan.held_out, len(plan.candidates)),
              file=sys.stderr)  # fmt: skip
    built = model_build(models[chosen])
    options = dict(built.options) if built is not None else config.options()
    saved = SavedModel(models[chosen], config.model, options, task, task.options(),
                       __version__, record)  # fmt: skip
    return saved, candidates
