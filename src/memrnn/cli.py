"""The ``memrnn`` command line: the only module that parses arguments or prints for people."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sqlite3
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import torch
from tqdm import tqdm

from memrnn import __version__
from memrnn.errors import UserError, one_line_warning
from memrnn.experiments.base import PROFILE_MEANING, PROFILE_NAMES
from memrnn.experiments.registry import experiment_names, get_experiment
from memrnn.structures import NeuralQueue, NeuralStack

if TYPE_CHECKING:
    from memrnn.runner.sweep import Backend

# Figure 1a of Grefenstette et al. (2015): values 1, 2, 3 with these push and pop strengths.
_FIGURE_1A = {"values": [1.0, 2.0, 3.0], "push": [0.8, 0.5, 0.9], "pop": [0.0, 0.1, 0.9]}


DATA_ENV = "MEMRNN_DATA"  # the data folder, where no --data is given


def _writable_folder(path: Path, option: str = "--out") -> Path:
    """Create ``path`` if needed and make sure files can be written in it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".memrnn-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise UserError(
            f"{option} {path}: cannot write there ({error.strerror or error})"
        ) from None
    return path


def _data_folder(args: argparse.Namespace, out: Path) -> Path:
    """Where the runs keep the data sets they make once: --data, else $MEMRNN_DATA, else
    the folder ``data`` inside the output folder."""
    if args.data is not None:
        return _writable_folder(args.data, "--data")
    if os.environ.get(DATA_ENV):
        return _writable_folder(Path(os.environ[DATA_ENV]), DATA_ENV)
    return out / "data"


def _demo(_: argparse.Namespace) -> int:
    """Print the paper's Figure 1a example step by step for the stack and the queue."""
    values = torch.tensor(_FIGURE_1A["values"], dtype=torch.float64).view(1, 3, 1)
    push = torch.tensor([_FIGURE_1A["push"]], dtype=torch.float64)
    pop = torch.tensor([_FIGURE_1A["pop"]], dtype=torch.float64)
    for memory in (NeuralStack(), NeuralQueue()):
        print(f"{type(memory).__name__} (Grefenstette et al. 2015, Figure 1a)")
        print("   t  value   push    pop   read   strengths")
        state = memory.initial_state(1, 1, dtype=torch.float64)
        for t in range(3):
            read, state = memory.step(state, values[:, t], push[:, t], pop[:, t])
            strengths = ", ".join(f"{s:.2f}" for s in state.strengths[0].tolist())
            print(
                f"{t + 1:4d} {values[0, t, 0]:6.2f} {push[0, t]:6.2f} {pop[0, t]:6.2f} "
                f"{read[0, 0]:6.2f}   ({strengths})"
            )
        print()
    return 0


def _list(args: argparse.Namespace) -> int:
    """The experiments and their runs; with ``--json`` every run's full config."""
    if args.names:
        print("\n".join(experiment_names()))
        return 0
    names = args.experiments or experiment_names()
    experiments = [get_experiment(name) for name in names]  # unknown names fail first
    profiles = [args.profile] if args.profile else list(PROFILE_NAMES)
    if args.json:
        listed = [
            {"key": spec.key, **spec.to_dict()}
            for experiment in experiments
            for profile in profiles
            for spec in experiment.runs(profile)
        ]
        print(json.dumps(listed, indent=2, sort_keys=True))
        return 0
    every = bool(args.experiments)  # named experiments: name every run
    for name, experiment in zip(names, experiments, strict=True):
        print(f"{name}: {experiment.title}")
        print(f"  reproduces: {experiment.reproduces}")
        for profile in profiles:
            runs = experiment.runs(profile)
            shown = [spec.name for spec in (runs if every else runs[:6])]
            more = " ..." if len(shown) < len(runs) else ""
            print(f"  {profile:5s} {len(runs):3d} runs ({PROFILE_MEANING[profile]}): "
                  f"{', '.join(shown)}{more}")  # fmt: skip
    return 0


def _train(args: argparse.Namespace) -> int:
    from memrnn.io import remove_stale_temporaries
    from memrnn.runner.config import config_from_mapping, with_overrides
    from memrnn.runner.lock import folder_lock
    from memrnn.runner.reproduce import STORE_NAME, checkpoint_path
    from memrnn.runner.store import ResultsStore
    from memrnn.runner.train import Progress, check_config, run
    from memrnn.runner.version import code_version

    experiment = get_experiment(args.experiment)
    runs = {spec.name: spec for spec in experiment.runs(args.profile)}
    name = args.run or next(iter(runs))
    if name not in runs:
        raise UserError(
            f"--run {name}: {args.experiment} has no such run in profile "
            f"{args.profile}; its runs are: {', '.join(runs)}"
        )
    base = runs[name]
    config = with_overrides(config_from_mapping(experiment.config_type, base.config), args.set)
    check_config(experiment, config)
    spec = dataclasses.replace(base, config=config.to_dict())
    out = _writable_folder(args.out)
    data = _data_folder(args, out)
    checkpoint = checkpoint_path(out, spec)
    with (
        folder_lock(out),
        ResultsStore(out / STORE_NAME) as store,
        tqdm(total=config.steps, unit="step", file=sys.stderr, disable=args.quiet) as bar,
    ):
        for folder in (out, data):  # what writes killed before their rename left
            remove_stale_temporaries(folder)
        if not args.resume:
            checkpoint.unlink(missing_ok=True)
        print(f"{experiment.name} / {spec.name} ({args.profile}), seed {spec.seed}, run {spec.key}")
        store.start(spec, code_version())

        def show(p: Progress) -> None:
            bar.n = p.step
            bar.set_postfix(loss=f"{p.loss:.4f}", seq_per_s=f"{p.sequences_per_second:.0f}")

        try:
            output = run(
                experiment,
                config,
                data=data,
                checkpoint=checkpoint,
                resume=args.resume,
                on_progress=show,
            )
        except Exception as error:
            store.fail(spec, repr(error))
            raise
        except BaseException:  # Ctrl-C or SIGTERM: --resume continues from the checkpoint
            store.interrupt(spec)
            raise
        store.finish(spec, output)
    for metric, value in sorted(output.metrics.items()):
        print(f"  {metric:28s} {value:.6g}")
    print(f"  {'wall seconds':28s} {output.wall_seconds:.1f}")
    return 0


def _backend(args: argparse.Namespace) -> Backend:
    from memrnn.runner.sweep import LocalBackend, RayBackend

    if args.backend == "ray":
        return RayBackend(address=args.address, num_cpus=args.workers)
    return LocalBackend(workers=args.workers)


def _reproduce(args: argparse.Namespace) -> int:
    from memrnn.runner.reproduce import reproduce
    from memrnn.runner.sweep import JobResult

    names = args.experiments or experiment_names()
    experiments = [get_experiment(name) for name in names]
    out = _writable_folder(args.out)
    data = _data_folder(args, out)
    backend = _backend(args)
    bars: list[tqdm[None]] = []  # made once the runs are checked: an error shows no bar

    def start(total: int) -> None:
        desc = f"reproduce {args.profile}"
        bars.append(tqdm(total=total, unit="run", file=sys.stderr, disable=args.quiet, desc=desc))

    def show(result: JobResult, done: int, total: int) -> None:
        bars[0].update(done - bars[0].n)
        bars[0].set_postfix_str(
            f"{result.spec.experiment}/{result.spec.name}"
            + (" FAILED" if result.output is None else "")
        )

    try:
        summary = reproduce(
            experiments,
            args.profile,
            out,
            backend,
            threads=args.threads,
            data=data,
            on_start=start,
            on_result=show,
        )
    finally:
        for bar in bars:
            bar.close()
    ran = len(summary.finished) + len(summary.failed)
    print(
        f"{summary.planned} runs planned, {summary.skipped} already finished, {ran} run now, "
        f"{len(summary.failed)} failed"
    )
    for failure in summary.failed:
        last = (failure.error or "").strip().splitlines()[-1:] or ["unknown error"]
        print(f"  FAILED {failure.spec.experiment}/{failure.spec.name}: {last[0]}")
    for path in summary.files:
        print(f"  wrote {path}")
    return 1 if summary.failed else 0


def _report(args: argparse.Namespace) -> int:
    from memrnn.runner.reproduce import report

    experiments = [get_experiment(name) for name in experiment_names()]
    for path in report(args.out, experiments):
        print(f"wrote {path}")
    return 0


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

`memrnn COMMAND --help` describes a command's options.
"""
_DATA_HELP = (
    f"where the runs keep the data sets they make once and read again (default: ${DATA_ENV} "
    "if set, else OUT/data)"
)


class _Parser(argparse.ArgumentParser):
    """Mistakes in the arguments as one line, like every other error of the command."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (`{self.prog} --help` lists the options)\n")


def _count(text: str) -> int:
    """An argument that counts something: an int >= 1."""
    value = int(text) if text.strip().lstrip("+-").isdigit() else 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an int >= 1, got {text!r}")
    return value


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
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser(
        "demo",
        help="run the neural stack and queue on Figure 1a",
        description="Print the example of Grefenstette et al. (2015), Figure 1a, step by "
        "step: the values, push and pop strengths, reads and strengths of the neural stack "
        "and of the neural queue.",
    )
    demo.set_defaults(handler=_demo)

    listing = commands.add_parser(
        "list",
        help="the experiments and their runs per profile",
        description="List the experiments (those of memrnn and those that installed "
        "packages declare under the entry point group memrnn.experiments), what each "
        "reproduces, and its runs per profile: all runs of the experiments named, the "
        "first few of each otherwise.",
    )
    listing.add_argument("experiments", nargs="*", help="default: every experiment")
    listing.add_argument("--profile", choices=PROFILE_NAMES, help="default: every profile")
    listing.add_argument(
        "--json", action="store_true", help="every run with its key, tags and full config, as JSON"
    )
    listing.add_argument(
        "--names", action="store_true", help="only the experiments' names, one a line"
    )
    listing.set_defaults(handler=_list)

    train = commands.add_parser(
        "train",
        help="train one run, with progress",
        description="Carry out one run of an experiment's profile, with a progress bar, "
        "and store it in OUT/store.sqlite. --set changes its settings; --resume continues "
        "an interrupted run from its checkpoint.",
    )
    train.add_argument("experiment")
    train.add_argument("--run", help="which of the profile's runs (default: its first)")
    train.add_argument("--profile", choices=PROFILE_NAMES, default="quick")
    train.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a setting; repeat for several (`memrnn list EXPERIMENT --json` shows them)",
    )
    train.add_argument("--out", type=Path, default=Path("runs"), help="default: runs")
    train.add_argument("--data", type=Path, metavar="DIR", help=_DATA_HELP)
    train.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.set_defaults(handler=_train)

    repro = commands.add_parser(
        "reproduce",
        help="run what is missing and write the report",
        description="Run every run of the profile that OUT/store.sqlite does not hold "
        "finished (resuming interrupted ones), then write OUT/report.md, "
        "OUT/results.json, OUT/runs.json and OUT/figures/.",
    )
    repro.add_argument("experiments", nargs="*", help="default: every experiment")
    repro.add_argument("--profile", choices=PROFILE_NAMES, default="quick")
    repro.add_argument("--out", type=Path, default=Path("reports"), help="default: reports")
    repro.add_argument("--data", type=Path, metavar="DIR", help=_DATA_HELP)
    repro.add_argument("--backend", choices=("local", "ray"), default="local")
    repro.add_argument("--address", help="Ray cluster address (default: start a local one)")
    repro.add_argument(
        "--workers", type=_count, default=None, help="parallel runs (default: one per CPU core)"
    )
    repro.add_argument("--threads", type=_count, default=1, help="torch and BLAS threads per run")
    repro.add_argument("--quiet", action="store_true", help="no progress bar")
    repro.set_defaults(handler=_reproduce)

    rep = commands.add_parser(
        "report",
        help="rebuild the report from the results store",
        description="Write the report files again from OUT/store.sqlite alone, running nothing.",
    )
    rep.add_argument("--out", type=Path, default=Path("reports"), help="default: reports")
    rep.set_defaults(handler=_report)
    return parser


def _on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds like Ctrl-C: runs marked interrupted, pool ended


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (default: ``sys.argv``) and return its exit status: 0 done,
    1 some run failed, 2 a mistake in what was asked for or a damaged file (one line on
    stderr, the traceback with --debug), 130 interrupted."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    warnings.formatwarning = one_line_warning
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code: int = args.handler(args)
        sys.stdout.flush()  # here, where a closed pipe can still be caught
    except (UserError, ValueError, TypeError, OSError, sqlite3.Error) as error:
        if args.debug:
            raise
        if isinstance(error, BrokenPipeError):  # `memrnn list --json | head`
            return _quiet_broken_pipe()
        print(f"memrnn: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "memrnn: interrupted; finished runs are stored, `--resume` continues", file=sys.stderr
        )
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    return code


def _one_line(error: BaseException) -> str:
    """The error as a person reads it: its own words for ours, the kind and words for the
    rest (an OSError names its file)."""
    if isinstance(error, UserError):
        return str(error)
    text = " ".join(str(error).split()) or "no message"
    return f"{type(error).__name__}: {text} (--debug shows where)"


def _quiet_broken_pipe() -> int:
    """The reader of our output went away: stop without a second error when Python
    flushes stdout at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, as the shell reports a command its pipe ended


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
