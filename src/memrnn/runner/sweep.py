"""Executing many runs: a local process pool, or Ray.

Workers train and write their own checkpoints; what they return (metrics, history,
artifacts) comes back to the driver, which alone writes the results store. A run that
raises comes back as a failure, so one bad run does not stop the sweep.
"""

from __future__ import annotations

import multiprocessing
import os
import traceback
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import torch
from threadpoolctl import threadpool_limits

from memrnn.experiments.base import RunOutput, RunSpec


@dataclass(frozen=True)
class Job:
    """One run to execute: what, where to checkpoint, where its data caches are, how
    many CPU threads to use.

    ``experiment`` is the experiment class's import path ("module:Class"), so that a
    worker process can build it without sharing the driver's memory.
    """

    experiment: str
    spec: RunSpec
    checkpoint: Path
    threads: int = 1
    data: Path | None = None


@dataclass(frozen=True)
class JobResult:
    spec: RunSpec
    output: RunOutput | None
    error: str | None = None


def execute_job(job: Job) -> JobResult:
    """Train one run (resuming from its checkpoint if one exists). Runs in a worker."""
    from memrnn.experiments.registry import load_experiment  # workers import lazily
    from memrnn.runner.config import config_from_mapping
    from memrnn.runner.train import run

    torch.set_num_threads(job.threads)
    try:
        experiment = load_experiment(job.experiment)
        config = config_from_mapping(experiment.config_type, job.spec.config)
        # NumPy's BLAS too: workers side by side must not each take every core, or they
        # slow each other down and the runtimes they record mean little
        with threadpool_limits(limits=job.threads):
            output = run(experiment, config, data=job.data, checkpoint=job.checkpoint, resume=True)
    except Exception:
        return JobResult(job.spec, None, traceback.format_exc())
    return JobResult(job.spec, output)


class Backend(Protocol):
    """Runs jobs and yields their results as they complete."""

    def execute(self, jobs: Sequence[Job]) -> Iterator[JobResult]: ...


class LocalBackend:
    """A process pool on this machine (or in-process when one worker is asked for)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def execute(self, jobs: Sequence[Job]) -> Iterator[JobResult]:
        workers = min(self.workers, len(jobs))
        if workers <= 1:
            yield from (execute_job(job) for job in jobs)
            return
        # spawn, not fork: forking a process whose torch already started threads can hang.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = [pool.submit(execute_job, job) for job in jobs]
            for future in as_completed(futures):
                yield future.result()


class RayBackend:
    """Each run as a Ray task on a local or existing cluster (``pip install memrnn[ray]``).

    Args:
        address: an existing cluster ("auto", "ray://host:10001"); None starts a local one.
        num_cpus: CPUs of the local cluster started when ``address`` is None.
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        try:
            import ray
        except ImportError as error:
            raise ImportError("the Ray backend needs Ray: pip install 'memrnn[ray]'") from error
        self._ray: Any = ray
        if not ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address is None:
                options["num_cpus"] = num_cpus
            ray.init(address=address, **options)

    def execute(self, jobs: Sequence[Job]) -> Iterator[JobResult]:
        ray = self._ray
        task = ray.remote(execute_job)
        pending = [
            task.options(num_cpus=job.threads, num_gpus=job.spec.gpus).remote(job) for job in jobs
        ]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])

    def shutdown(self) -> None:
        self._ray.shutdown()
