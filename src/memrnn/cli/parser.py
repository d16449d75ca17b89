"""The ``memrnn`` command line's arguments: commands, options and their help."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from memrnn import __version__
from memrnn.experiments.profiles import ALL_PROFILES
from memrnn.runner import GROUP
from memrnn.validation import MAX_SEED

DATA_ENV = "MEMRNN_DATA"  # the data folder, where no --data is given
_COMMANDS, _PAIR_COMMANDS = "memrnn.cli.commands", "memrnn.cli.pair_commands"

_DESCRIPTION = """\
Memory-augmented recurrent networks and the experiments of the papers they come from.

An experiment reproduces a paper's tables and figures. Each has three profiles: smoke
(seconds, to test that everything runs), quick (minutes to an hour on a laptop CPU,
scaled down from the paper) and paper (the paper's settings). `memrnn list` names the
experiments, `memrnn reproduce` runs what is missing and writes the report, `memrnn
train` runs one run with a progress bar. Runs keep the data sets they make once in a
data folder: --data DIR, else $MEMRNN_DATA, else OUT/data.

The library under the command has three contracts, each with a registry: tasks
(memrnn.tasks: make_task, register_task), models (memrnn.models: build_model,
register_model) and experiments (memrnn.experiments, found in that package and through
the entry point group memrnn.experiments of installed packages).

Your own data: `memrnn fit PAIRS.tsv --model stack_lstm --out DIR` trains a model on a
file of `source<TAB>target` lines and saves it in DIR; `memrnn decode DIR INPUTS.txt`
decodes new sources with it, `memrnn score DIR PAIRS.tsv` scores it.

`memrnn COMMAND --help` describes a command's options.
"""
DATA_HELP = (
    f"where the runs keep the data sets they make once and read again (default: ${DATA_ENV} "
    "if set, else OUT/data)"
)


class _Parser(argparse.ArgumentParser):
    """Mistakes in the arguments as one line, like every other error of the command."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (`{self.prog} --help` lists the options)\n")


def _handler(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """The command's handler ``module.name``, imported only when the command runs, so that
    `memrnn --help` and a mistake in the arguments answer without importing torch."""

    def handle(args: argparse.Namespace) -> int:
        run: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), name)
        return run(args)

    return handle


def _count(text: str) -> int:
    """An argument that counts something: an int >= 1."""
    value = int(text) if text.strip().lstrip("+-").isdigit() else 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an int >= 1, got {text!r}")
    return value


def _seed(text: str) -> int:
    """A seed: an int from 0 to 2**32 - 1."""
    value = int(text) if text.strip().lstrip("+").isdigit() else -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected an int from 0 to {MAX_SEED}, got {text!r}")
    return value


def _folder(text: str) -> Path:
    """A folder's path; an empty one (which would mean the current folder) is refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got an empty path")
    return Path(text)


SEEDS_HELP = (
    "run the profile with these seeds instead of its own (another seed set, to see "
    "whether the conclusions hold); `memrnn report` needs the same --seeds"
)


def _add_seeds(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seeds", type=_seed, nargs="+", metavar="SEED", help=SEEDS_HELP)


def _add_tensorboard(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tensorboard",
        type=_folder,
        metavar="DIR",
        help="also write TensorBoard event files of the loss and metrics to DIR "
        "(needs `pip install 'memrnn[tensorboard]'`)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="memrnn",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"memrnn {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of an error, not one line"
    )
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = subcommands.add_parser(
        "demo",
        help="run the neural stack and queue on Figure 1a",
        description="Print the example of Grefenstette et al. (2015), Figure 1a, step by "
        "step: the values, push and pop strengths, reads and strengths of the neural stack "
        "and of the neural queue.",
    )
    demo.set_defaults(handler=_handler(_COMMANDS, "run_demo"))

    listing = subcommands.add_parser(
        "list",
        help="the experiments and their runs per profile",
        description="List the experiments (those of memrnn and those that installed "
        "packages declare under the entry point group memrnn.experiments), what each "
        "reproduces, and its runs per profile: all runs of the experiments named, the "
        "first few of each otherwise.",
    )
    listing.add_argument("experiments", nargs="*", help="default: every experiment")
    listing.add_argument("--profile", choices=ALL_PROFILES, help="default: every profile")
    listing.add_argument(
        "--json", action="store_true", help="every run with its key, tags and full config, as JSON"
    )
    listing.add_argument(
        "--names", action="store_true", help="only the experiments' names, one a line"
    )
    _add_seeds(listing)
    listing.set_defaults(handler=_handler(_COMMANDS, "run_list"))

    train = subcommands.add_parser(
        "train",
        help="train one run, with progress",
        description="Carry out one run of an experiment's profile, with a progress bar, "
        "and store it in OUT/store.sqlite. --set changes its settings (not those its name "
        "shows, such as its seed: --seeds and --run pick those runs); --resume continues "
        "an interrupted run from its checkpoint.",
    )
    train.add_argument("experiment")
    train.add_argument("--run", help="which of the profile's runs (default: its first)")
    train.add_argument("--profile", choices=ALL_PROFILES, default="quick")
    train.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a setting; repeat for several (`memrnn list EXPERIMENT --json` shows them)",
    )
    train.add_argument("--out", type=_folder, default=Path("runs"), help="default: runs")
    train.add_argument("--data", type=_folder, metavar="DIR", help=DATA_HELP)
    train.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_seeds(train)
    _add_tensorboard(train)
    train.set_defaults(handler=_handler(_COMMANDS, "run_train"))

    repro = subcommands.add_parser(
        "reproduce",
        help="run what is missing and write the report",
        description="Run every run of the profile of the experiments named (or, with "
        "--all, of every experiment) that OUT/store.sqlite does not hold finished "
        "(resuming interrupted ones), then write OUT/report.md, OUT/results.json, "
        "OUT/runs.json and OUT/figures/. Without names or --all it lists the experiments "
        "with the time their quick profile took.",
    )
    repro.add_argument(
        "experiments", nargs="*", help="the experiments to run (none: --all, or a list of them)"
    )
    repro.add_argument("--all", action="store_true", help="every experiment")
    repro.add_argument("--profile", choices=ALL_PROFILES, default="quick")
    repro.add_argument("--out", type=_folder, default=Path("reports"), help="default: reports")
    repro.add_argument("--data", type=_folder, metavar="DIR", help=DATA_HELP)
    repro.add_argument("--backend", choices=("local", "ray"), default="local")
    repro.add_argument("--address", help="Ray cluster address (default: start a local one)")
    repro.add_argument(
        "--workers", type=_count, default=None, help="parallel runs (default: one per CPU core)"
    )
    repro.add_argument("--threads", type=_count, default=1, help="torch and BLAS threads per run")
    repro.add_argument(
        "--group",
        type=_count,
        default=GROUP,
        metavar="K",
        help="train up to K runs that differ only in seed or learning rate as one batched "
        f"model, where the experiment allows it (default {GROUP}; 1: every run alone)",
    )
    repro.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_seeds(repro)
    repro.set_defaults(handler=_handler(_COMMANDS, "run_reproduce"))

    rep = subcommands.add_parser(
        "report",
        help="rebuild the report from the results store",
        description="Write the report files again from OUT/store.sqlite alone, running nothing.",
    )
    rep.add_argument("--out", type=_folder, default=Path("reports"), help="default: reports")
    _add_seeds(rep)
    rep.set_defaults(handler=_handler(_COMMANDS, "run_report"))
    _add_pair_commands(subcommands)
    return parser


PAIRS_FORMAT = (
    "one pair a line, source<TAB>target, tokens separated by single spaces (or, with "
    "--tokens chars, each character a token), UTF-8; blank lines only at the end"
)


def _add_pair_commands(subcommands: Any) -> None:
    """``fit``, ``decode`` and ``score``: a model on your own pairs."""
    fit = subcommands.add_parser(
        "fit",
        help="train models on your own pairs file and keep the one that generalises best",
        description="Train candidates (each --model, --restarts times) on PAIRS ("
        + PAIRS_FORMAT
        + ") and keep the one with the best sequence accuracy on longer sources than it "
        "trained on: the pairs of the longest sources, held out from training, or --valid. "
        "Each candidate has a progress bar, a checkpoint (--resume continues an "
        "interrupted fit) and its run in OUT/store.sqlite; a table then shows each one's "
        "training and held-out accuracy and warns when none generalises. The chosen model "
        "is saved in OUT (model.safetensors and model.json: the weights, and the model, "
        "its options, vocabularies and the choice). The vocabularies are the file's "
        "tokens, sorted. `memrnn decode OUT` and `memrnn score OUT` use it; from Python, "
        "memrnn.models.load_model(OUT).",
    )
    fit.add_argument("pairs", type=Path, help="the training pairs")
    fit.add_argument(
        "--model", action="append", metavar="NAME", help="a registered model that reads "
        "tokens; repeat for several (default: stack_lstm, queue_lstm and deque_lstm)"
    )  # fmt: skip
    fit.add_argument(
        "--restarts", type=_count, default=4, help="runs of each model, each with its own "
        "seed; the one that does best on the held-out pairs is kept (default: 4)"
    )  # fmt: skip
    fit.add_argument("--out", type=_folder, required=True, help="the run folder")
    fit.add_argument(
        "--steps", type=_count, help="optimiser steps of each candidate (default: 3000)"
    )
    fit.add_argument("--seed", type=_seed, help="seeds the weights and the batches (default: 0)")
    fit.add_argument(
        "--valid", type=Path, metavar="FILE", help="pairs to choose the model on (default: "
        "the training pairs with the longest sources, held out from training)"
    )  # fmt: skip
    fit.add_argument(
        "--tokens",
        choices=("words", "chars"),
        default="words",
        help="what a token is: words separated by spaces, or characters (default: words); "
        "decode and score split their files as the model was trained",
    )
    fit.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a build option of the model (hidden_size=64); repeat for several",
    )
    fit.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a training setting (batch_size, lr, eval_every, ...); repeat for several",
    )
    fit.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    fit.add_argument(
        "--force", action="store_true", help="replace the model saved in OUT by an earlier "
        "fit (without it, a folder holding one is refused)"
    )  # fmt: skip
    fit.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_tensorboard(fit)
    fit.set_defaults(handler=_handler(_PAIR_COMMANDS, "run_fit"))

    decode = subcommands.add_parser(
        "decode",
        help="decode new sources with a model from `memrnn fit`",
        description="Print the target that greedy decoding gives for each source of "
        "INPUTS (one source a line, split into tokens as the model was trained: words "
        "separated by single spaces, or characters), one a line.",
    )
    decode.add_argument("folder", type=Path, metavar="DIR", help="the folder of `memrnn fit`")
    decode.add_argument("inputs", type=Path, metavar="INPUTS", help="the sources")
    decode.set_defaults(handler=_handler(_PAIR_COMMANDS, "run_decode"))

    score = subcommands.add_parser(
        "score",
        help="score a model from `memrnn fit` on pairs",
        description="Decode the sources of PAIRS (" + PAIRS_FORMAT + ") greedily and "
        "print the sequence accuracy (targets decoded exactly), the token accuracy "
        "(target tokens decoded at their position) and the teacher-forced loss.",
    )
    score.add_argument("folder", type=Path, metavar="DIR", help="the folder of `memrnn fit`")
    score.add_argument("pairs", type=Path, metavar="PAIRS", help="the pairs")
    score.set_defaults(handler=_handler(_PAIR_COMMANDS, "run_score"))
