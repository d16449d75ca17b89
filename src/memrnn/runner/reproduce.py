"""``memrnn reproduce``: run what is missing, store it, write the report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memrnn.experiments.base import Experiment, Profile, RunSpec
from memrnn.experiments.registry import experiment_path
from memrnn.runner.report import write_report
from memrnn.runner.store import ResultsStore
from memrnn.runner.sweep import Backend, Job, JobResult
from memrnn.runner.version import code_version

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
    on_result: Callable[[JobResult, int, int], None] | None = None,
) -> Summary:
    """Run every run of ``profile`` not already finished in ``out``, then write the report.

    The runs keep the data sets they make once under ``data`` (default: ``out/data``).
    A run left 'running' or 'failed' by an earlier call resumes from its checkpoint.
    """
    data = out / DATA_NAME if data is None else data
    summary = Summary()
    with ResultsStore(out / STORE_NAME) as store:
        jobs = []
        for experiment in experiments:
            for spec in experiment.runs(profile):
                summary.planned += 1
                if store.status(spec.key) == "finished":
                    summary.skipped += 1
                    continue
                checkpoint = checkpoint_path(out, spec)
                jobs.append(Job(experiment_path(experiment), spec, checkpoint, threads, data))
        version = code_version()
        for job in jobs:
            store.start(job.spec, version)
        for done, result in enumerate(backend.execute(jobs), start=1):
            if result.output is not None:
                store.finish(result.spec, result.output)
                summary.finished.append(result.spec)
            else:
                store.fail(result.spec, result.error or "unknown error")
                summary.failed.append(result)
            if on_result is not None:
                on_result(result, done, len(jobs))
        summary.files = write_report(store, out, experiments)
    return summary


def report(out: Path, experiments: Sequence[Experiment]) -> list[Path]:
    """Rebuild the report in ``out`` from its store alone."""
    path = out / STORE_NAME
    if not path.exists():
        raise FileNotFoundError(f"{path}: no results store here; run `memrnn reproduce` first")
    with ResultsStore(path) as store:
        return write_report(store, out, experiments)
