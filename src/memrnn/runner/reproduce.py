"""``memrnn reproduce``: run what is missing, store it, write the report."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from memrnn.errors import UserError
from memrnn.experiments.base import Experiment, Profile, RunSpec
from memrnn.experiments.registry import experiment_names, experiment_path, get_experiment
from memrnn.io import remove_stale_temporaries
from memrnn.runner import GROUP
from memrnn.runner.config import config_from_mapping
from memrnn.runner.lock import folder_lock
from memrnn.runner.report import write_report
from memrnn.runner.store import ResultsStore
from memrnn.runner.sweep import Backend, Job, JobResult
from memrnn.runner.train import check_config
from memrnn.runner.version import code_version
from memrnn.validation import check_int

STORE_NAME = "store.sqlite"
DATA_NAME = "data"  # the data folder's default, inside the output folder


@dataclass
class Summary:
    """What a reproduce call did."""

    planned: int = 0
    skipped: int = 0
    finished: list[RunSpec] = field(default_factory=list)
    failed: list[JobResult] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def checkpoint_path(out: Path, spec: RunSpec) -> Path:
    return out / "checkpoints" / f"{spec.key}.pt"


def reproduce(
    experiments: Sequence[Experiment],
    profile: Profile,
    out: Path,
    backend: Backend,
    *,
    threads: int = 1,
    data: Path | None = None,
    group: int = GROUP,
    on_start: Callable[[int], None] | None = None,
    on_result: Callable[[JobResult, int, int], None] | None = None,
) -> Summary:
    """Run every run of ``profile`` not already finished in ``out``, then write the report.

    The runs keep the data sets they make once under ``data`` (default: ``out/data``).
    A run left 'running', 'failed' or 'interrupted' by an earlier call resumes from its
    checkpoint. Every run's config is checked before any starts. Runs that the experiment
    lets train together (``Experiment.group_key``) do so, at most ``group`` at a time
    (1: every run alone). The report covers every
    experiment with results in the store, not only those run now. ``on_start`` is told
    how many runs will run, once they are checked; ``on_result`` is told of each result
    with the number done and the total.

    Raises:
        UserError: another process works in ``out`` (``folder_lock``), its store is
            damaged, or a run's config cannot run here (named).
    """
    data = out / DATA_NAME if data is None else data
    summary = Summary()
    with folder_lock(out), ResultsStore(out / STORE_NAME) as store:
        for folder in (out, data):  # what writes killed before their rename left
            remove_stale_temporaries(folder)
        jobs = []
        for experiment in experiments:
            pending = []
            for spec in experiment.runs(profile):
                summary.planned += 1
                if store.status(spec.key) == "finished":
                    summary.skipped += 1
                    continue
                _check_run(experiment, spec)
                pending.append(spec)
            jobs += plan_jobs(experiment, pending, out, threads, data, group)
        runs = [spec for job in jobs for spec, _ in job.runs]
        version = code_version()
        for spec in runs:
            store.start(spec, version)
        if on_start is not None:
            on_start(len(runs))
        try:
            with closing(backend.execute(jobs)) as results:
                for done, result in enumerate(results, start=1):
                    if result.output is not None:
                        store.finish(result.spec, result.output)
                        summary.finished.append(result.spec)
                    else:
                        store.fail(result.spec, result.error or "unknown error")
                        summary.failed.append(result)
                    if on_result is not None:
                        on_result(result, done, len(runs))
        except BaseException:  # Ctrl-C or SIGTERM: what was running can resume
            for spec in runs:
                store.interrupt(spec)
            raise
        summary.files = write_report(store, out, _reported(experiments))
    return summary


def plan_jobs(
    experiment: Experiment,
    specs: Sequence[RunSpec],
    out: Path,
    threads: int,
    data: Path | None,
    group: int = GROUP,
) -> list[Job]:
    """``specs`` as jobs: each run alone, or with the runs of its group key, at most
    ``group`` to a job, in the order of each job's first run."""
    check_int("group", group, 1)
    path = experiment_path(experiment)
    chunks: list[list[RunSpec]] = []
    open_chunk: dict[Hashable, list[RunSpec]] = {}
    for spec in specs:
        key = None
        if group > 1:
            key = experiment.group_key(config_from_mapping(experiment.config_type, spec.config))
        chunk = open_chunk.get(key) if key is not None else None
        if chunk is None or len(chunk) >= group:
            chunk = []
            chunks.append(chunk)
            if key is not None:
                open_chunk[key] = chunk
        chunk.append(spec)
    return [
        Job(path, tuple((spec, checkpoint_path(out, spec)) for spec in chunk), threads, data)
        for chunk in chunks
    ]


def _check_run(experiment: Experiment, spec: RunSpec) -> None:
    try:
        check_config(experiment, config_from_mapping(experiment.config_type, spec.config))
    except (ValueError, TypeError) as error:
        raise UserError(f"{spec.experiment}/{spec.name}: {error}") from None


def _reported(experiments: Sequence[Experiment]) -> list[Experiment]:
    """The experiments given, then every other one registered: a report made after
    running some experiments keeps the others' results."""
    given = {experiment.name for experiment in experiments}
    others = [get_experiment(name) for name in experiment_names() if name not in given]
    return [*experiments, *others]


def report(out: Path, experiments: Sequence[Experiment]) -> list[Path]:
    """Rebuild the report in ``out`` from its store alone.

    Raises:
        UserError: no store in ``out``, a damaged one, another process works there, or
            no finished run to report (nothing is then written).
    """
    path = out / STORE_NAME
    if not path.exists():  # before the lock, which would make the folder
        raise UserError(f"{path}: no results store here; run `memrnn reproduce` first")
    with folder_lock(out), ResultsStore(path, create=False) as store:
        remove_stale_temporaries(out, recursive=False)
        return write_report(store, out, experiments, empty_ok=False)
