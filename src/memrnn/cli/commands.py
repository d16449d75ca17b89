"""What each ``memrnn`` command does: the handlers the parser dispatches to, each given
the parsed arguments and returning the exit status."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from tqdm import tqdm

from memrnn.cli.parser import DATA_ENV
from memrnn.errors import UserError
from memrnn.experiments.profiles import PROFILE_MEANING, Profile
from memrnn.experiments.registry import experiment_names, get_experiment
from memrnn.structures import NeuralQueue, NeuralStack

if TYPE_CHECKING:
    from memrnn.experiments.base import Experiment, RunSpec
    from memrnn.runner.sweep import Backend

# Figure 1a of Grefenstette et al. (2015): values 1, 2, 3 with these push and pop strengths.
_FIGURE_1A = {"values": [1.0, 2.0, 3.0], "push": [0.8, 0.5, 0.9], "pop": [0.0, 0.1, 0.9]}


def quick_minutes() -> dict[str, float]:
    """Each experiment's quick profile's run time in minutes (every run's single-threaded
    training time added up), as measured into ``quick_times.json`` by
    ``benchmarks/quick_times.py``; the docs' table shows the same file."""
    times = json.loads((resources.files("memrnn.experiments") / "quick_times.json").read_text())
    return {name: float(t["run_minutes"]) for name, t in times.items()}


def quick_times() -> str:
    """Every experiment with its quick profile's measured minutes, shortest first; those
    never measured (a plugin's) last."""
    names, measured = experiment_names(), quick_minutes()
    timed = sorted((measured[n], n) for n in names if n in measured)
    shown = [f"{name} {minutes:g} min" for minutes, name in timed]
    shown += [f"{name} (not measured)" for name in names if name not in measured]
    return ", ".join(shown) + " (run time: each run's single-threaded time, added up)"


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


def run_demo(_: argparse.Namespace) -> int:
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


def run_list(args: argparse.Namespace) -> int:
    """The experiments and their runs; with ``--json`` every run's full config."""
    if args.names:
        print("\n".join(experiment_names()))
        return 0
    names = args.experiments or experiment_names()
    listed = [(name, get_experiment(name)) for name in names]  # unknown names fail first
    if args.profile:  # a named experiment must have it; with none named, those that do
        for _, experiment in listed if args.experiments else []:
            experiment.offer(args.profile)
        listed = [(n, e) for n, e in listed if args.profile in e.profiles]

    def profiles(experiment: Experiment) -> list[Profile]:
        return [args.profile] if args.profile else list(experiment.profiles)

    if args.json:
        configs = [
            {"key": spec.key, **spec.to_dict()}
            for _, experiment in listed
            for profile in profiles(experiment)
            for spec in experiment.runs(profile)
        ]
        print(json.dumps(configs, indent=2, sort_keys=True))
        return 0
    every = bool(args.experiments)  # named experiments: name every run
    for name, experiment in listed:
        print(f"{name}: {experiment.title}")
        print(f"  reproduces: {experiment.reproduces}")
        for profile in profiles(experiment):
            runs = experiment.runs(profile)
            shown = [spec.name for spec in (runs if every else runs[:6])]
            more = " ..." if len(shown) < len(runs) else ""
            print(f"  {profile:5s} {len(runs):3d} runs ({PROFILE_MEANING[profile]}): "
                  f"{', '.join(shown)}{more}")  # fmt: skip
    return 0


def planned_run(args: argparse.Namespace) -> tuple[Experiment, RunSpec, Any]:
    """The experiment, run and config that ``memrnn train`` would train, checked but not
    started: its ``--run``, its ``--set`` settings and the config they make.

    Raises:
        UserError: an unknown experiment or run, or a setting the run refuses.
    """
    from memrnn.runner.config import config_from_mapping, with_overrides
    from memrnn.runner.train import check_config

    experiment = get_experiment(args.experiment)
    runs = {spec.name: spec for spec in experiment.runs(experiment.offer(args.profile))}
    name = args.run or next(iter(runs))
    if name not in runs:
        raise UserError(
            f"--run {name}: {args.experiment} has no such run in profile "
            f"{args.profile}; its runs are: {', '.join(runs)}"
        )
    base = runs[name]
    config = with_overrides(config_from_mapping(experiment.config_type, base.config), args.set)
    spec = _relabelled(base, config.to_dict(), list(runs.values()))
    check_config(experiment, config)
    return experiment, spec, config


def run_train(args: argparse.Namespace) -> int:
    from memrnn.cli.progress import progress_bar
    from memrnn.cli.stored import train_into
    from memrnn.runner.allocator import keep_freed_memory

    experiment, spec, config = planned_run(args)
    out = _writable_folder(args.out)
    data = _data_folder(args, out)
    keep_freed_memory()  # as the runner's processes do: no page faults on every step's buffers
    with progress_bar(config.steps, args.quiet, args.tensorboard) as bar:

        def start() -> None:
            where = f"{experiment.name} / {spec.name} ({args.profile})"
            print(f"{where}, seed {spec.seed}, run {spec.key}")
            bar.start()

        output = train_into(
            out, experiment, spec, config, data=data, resume=args.resume, on_start=start,
            on_progress=bar.show,
        )  # fmt: skip
    for metric, value in sorted(output.metrics.items()):
        print(f"  {metric:28s} {value:.6g}")
    print(f"  {'wall seconds':28s} {output.wall_seconds:.1f}")
    return 0


def _relabelled(base: RunSpec, config: Mapping[str, Any], runs: Sequence[RunSpec]) -> RunSpec:
    """``base`` with the settings ``config`` that ``--set`` made, kept truthful where a
    setting is one of the run's coordinates in its grid (a tag). The seed, and any
    coordinate in which runs of the profile differ from ``base`` with its other
    coordinates alike, are in the run's name, which would then name another run:
    refused. Any other (Ba et al.'s ``compiled``, one value per model) moves its tag.

    Raises:
        UserError: a setting that the run's name shows was changed; the error names the
            run to pick instead, or ``--seeds``.
    """
    tags = dict(base.tags)
    for key in base.tags:
        if key not in config or config[key] == base.config[key]:
            continue
        peers = _peers(key, base, runs)
        if key != "seed" and len({repr(r.config[key]) for r in peers}) == 1:
            tags[key] = config[key]
            continue
        # the run with the new value, its labels (a start, say) as alike as there is
        named = [
            r.name
            for r in sorted(peers, key=lambda r: sum(r.tags.get(k) != v for k, v in tags.items()))
            if r.config[key] == config[key]
        ]
        how = (
            f"--run {named[0]} is that run" if named
            else f"--seeds {config[key]} trains the profile's runs with it" if key == "seed"
            else f"no run of the profile has {key} {config[key]}"
        )  # fmt: skip
        raise UserError(
            f"--set {key}={config[key]}: the name of run {base.name} shows its {key}, "
            f"{base.config[key]}; {how}"
        )
    return dataclasses.replace(base, config=dict(config), tags=tags)


def _peers(key: str, base: RunSpec, runs: Sequence[RunSpec]) -> list[RunSpec]:
    """The runs of the profile at ``base``'s coordinates but ``key`` (the coordinates
    that are settings: labels such as a start follow from them)."""
    rest = [k for k in base.tags if k != key and k in base.config]
    return [r for r in runs if all(r.config.get(k) == base.config[k] for k in rest)]


def _backend(args: argparse.Namespace) -> Backend:
    from memrnn.runner.sweep import LocalBackend, RayBackend

    if args.backend == "ray":
        return RayBackend(address=args.address, num_cpus=args.workers)
    return LocalBackend(workers=args.workers)


def run_reproduce(args: argparse.Namespace) -> int:
    from memrnn.runner.reproduce import reproduce
    from memrnn.runner.sweep import JobResult

    if args.all and args.experiments:
        raise UserError("name experiments or give --all, not both")
    if not args.all and not args.experiments:
        raise UserError(
            "name the experiments to reproduce, or give --all to run every one; their quick "
            f"profiles took: {quick_times()}"
        )
    names = args.experiments or experiment_names()
    experiments = [get_experiment(name) for name in names]
    if args.all:  # every experiment that has the profile
        experiments = [e for e in experiments if args.profile in e.profiles]
    for experiment in experiments:
        experiment.offer(args.profile)
    if args.address is not None and args.backend != "ray":
        raise UserError(
            f"--address {args.address}: a Ray cluster's address goes with --backend ray"
        )
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
            group=args.group,
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


def run_report(args: argparse.Namespace) -> int:
    from memrnn.runner.reproduce import report

    experiments = [get_experiment(name) for name in experiment_names()]
    for path in report(args.out, experiments):
        print(f"wrote {path}")
    return 0
