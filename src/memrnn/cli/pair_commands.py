"""The commands on your own pairs: ``memrnn fit`` trains a model on a pairs file,
``memrnn decode`` decodes new sources with it, ``memrnn score`` scores it on pairs."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from memrnn.errors import UserError

# FitConfig fields that have options of their own, or that the data sets
_NOT_SET = {
    "model": "--model",
    "restarts": "--restarts",
    "model_options": "--option",
    "tokens": "--tokens",
    "pairs_sha256": "the pairs file",
    "valid_sha256": "--valid",
}


def _model_options(assignments: list[str]) -> dict[str, Any]:
    """``--option KEY=VALUE`` as build options: VALUE read as JSON (8, 0.5, true, "x"),
    else as the text it is."""
    options: dict[str, Any] = {}
    for item in assignments:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--option {item!r}: expected KEY=VALUE")
        if key.strip() in options:
            raise UserError(f"--option {key.strip()}: given twice; give each option once")
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
    return options


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The run's settings from --steps, --seed and --set, checked by name."""
    from memrnn.cli.pairs import FitConfig
    from memrnn.runner.config import with_overrides

    for item in args.set:
        key = item.partition("=")[0].strip()
        if key in _NOT_SET:
            raise UserError(f"--set {key}: given by {_NOT_SET[key]}, not --set")
    given = {"steps": args.steps, "seed": args.seed}
    config = with_overrides(
        FitConfig(**{k: v for k, v in given.items() if v is not None}), args.set
    )
    return {
        f.name: getattr(config, f.name)
        for f in dataclasses.fields(config)
        if f.name not in _NOT_SET
    }


def run_fit(args: argparse.Namespace) -> int:
    from memrnn.cli.candidates import fit_candidates, fit_plan, refuse_saved_model
    from memrnn.cli.commands import _writable_folder
    from memrnn.cli.selection import DEFAULT_MODELS
    from memrnn.models.saving import DESCRIPTION, WEIGHTS
    from memrnn.runner.allocator import keep_freed_memory

    options = _model_options(args.option)
    models = args.model or list(DEFAULT_MODELS)
    plan = fit_plan(
        args.pairs, args.valid, models, options, _settings(args), args.tokens, args.restarts
    )
    refuse_saved_model(args.out, args.force or args.resume)
    out = _writable_folder(args.out)
    keep_freed_memory()  # as in `memrnn train`
    print(
        f"{len(plan.candidates)} candidates ({', '.join(dict.fromkeys(models))}; "
        f"{args.restarts} restarts each) on {args.pairs}, chosen on {plan.held_out}"
    )
    saved, candidates = fit_candidates(
        out, plan, resume=args.resume, quiet=args.quiet, tensorboard=args.tensorboard
    )
    if args.quiet:  # the table went nowhere: the choice in one line
        chosen = saved.selection["chosen"]
        best = next(c for c in candidates if c.name == chosen)
        print(f"chose {chosen}: held-out sequence accuracy {best.held_out_accuracy:.6g}")
    print(f"saved the model in {out / DESCRIPTION} and {out / WEIGHTS}")
    return 0


def _pairs_model(folder: Path) -> Any:
    """The model saved in ``folder``, which must read text pairs."""
    from memrnn.models.saving import load_model
    from memrnn.tasks.text_pairs import TextPairsTask

    saved = load_model(folder)
    if not isinstance(saved.task, TextPairsTask):
        raise UserError(
            f"{folder}: its model reads {saved.task!r}, not text pairs; decode and score "
            "take a model trained by `memrnn fit`"
        )
    return saved


def run_decode(args: argparse.Namespace) -> int:
    from memrnn.tasks.text_pairs import join_tokens, read_sources
    from memrnn.tasks.text_pairs_decoding import decode_tokens

    saved = _pairs_model(args.folder)
    sources = read_sources(args.inputs, saved.task.tokens)
    for tokens in decode_tokens(saved.task, saved.model, sources):
        print(join_tokens(tokens, saved.task.tokens))
    return 0


def run_score(args: argparse.Namespace) -> int:
    from memrnn.tasks.text_pairs import read_pairs
    from memrnn.tasks.text_pairs_decoding import score_pairs

    saved = _pairs_model(args.folder)
    pairs = read_pairs(args.pairs, saved.task.tokens)
    scores = score_pairs(saved.task, saved.model, pairs)
    print(f"  {'pairs':28s} {len(pairs)}")
    for metric, value in sorted(scores.items()):
        print(f"  {metric:28s} {value:.6g}")
    return 0
