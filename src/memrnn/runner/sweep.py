"""Executing many runs: a local process pool, or Ray.

Workers train and write their own checkpoints; what they return (metrics, history,
artifacts) comes back to the driver, which alone writes the results store. A run that
raises comes back as a failure, so one bad run does not stop the sweep.

Workers never outlive their driver: they ignore Ctrl-C (the driver decides what stops),
and die when it dies, by the kernel's parent-death signal on Linux and a watchdog thread
everywhere. When the driver stops early (Ctrl-C, an error, SIGTERM), queued runs are
cancelled and running ones terminated at once; their checkpoints let them resume.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Generator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import torch
from threadpoolctl import threadpool_limits

from memrnn.errors import UserError, one_line_warning
from memrnn.experiments.base import RunOutput, RunSpec
from memrnn.models.controller.native import prepare
from memrnn.runner.allocator import keep_freed_memory
from memrnn.runner.tracker import remember_registrations
from memrnn.validation import check_int


@dataclass(frozen=True)
class Job:
    """Runs to execute together (one, or a group that trains as one batched model),
    where each checkpoints, where their data caches are, how many CPU threads to use.

    ``experiment`` is the experiment class's import path ("module:Class"), so that a
    worker process can build it without sharing the driver's memory. ``runs`` pairs each
    run with its checkpoint.
    """

    experiment: str
    runs: tuple[tuple[RunSpec, Path], ...]
    threads: int = 1
    data: Path | None = None

    def __post_init__(self) -> None:
        if not self.runs:
            raise ValueError("runs: a job needs at least one run")

    @property
    def gpus(self) -> float:
        """GPUs a scheduler should reserve: the most any of its runs asks for."""
        return max(spec.gpus for spec, _ in self.runs)


@dataclass(frozen=True)
class JobResult:
    spec: RunSpec
    output: RunOutput | None
    error: str | None = None


def execute_job(job: Job) -> list[JobResult]:
    """Train a job's runs (each resuming from its checkpoint if one exists), alone or as
    a group. Runs in a worker. A failure fails every run of the job."""
    from memrnn.experiments.registry import load_experiment  # workers import lazily
    from memrnn.runner.config import config_from_mapping
    from memrnn.runner.group import run_group
    from memrnn.runner.train import run

    torch.set_num_threads(job.threads)
    keep_freed_memory()
    specs = [spec for spec, _ in job.runs]
    try:
        experiment = load_experiment(job.experiment)
        configs = [config_from_mapping(experiment.config_type, s.config) for s in specs]
        checkpoints = [checkpoint for _, checkpoint in job.runs]
        # NumPy's BLAS too: workers side by side must not each take every core, or they
        # slow each other down and the runtimes they record mean little
        with threadpool_limits(limits=job.threads):
            if len(configs) == 1:
                outputs = [
                    run(experiment, configs[0], data=job.data, checkpoint=checkpoints[0],
                        resume=True)
                ]  # fmt: skip
            else:
                outputs = run_group(experiment, configs, data=job.data, checkpoints=checkpoints)
    except Exception:
        error = traceback.format_exc()
        return [JobResult(spec, None, error) for spec in specs]
    return [JobResult(spec, output) for spec, output in zip(specs, outputs, strict=True)]


class Backend(Protocol):
    """Runs jobs and yields their runs' results as they complete; closing the generator
    before the end cancels the runs not yet done."""

    def execute(self, jobs: Sequence[Job]) -> Generator[JobResult, None, None]: ...


_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
POOL_RETRIES = 2  # new pools for the unfinished jobs after a worker dies
_WATCH_SECONDS = 0.5


def _init_worker(driver: int) -> None:
    """Make a pool worker ignore Ctrl-C and die with ``driver``, its parent process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warnings.formatwarning = one_line_warning
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # no libc to call: the watchdog alone
            pass
    threading.Thread(target=_watch_driver, args=(driver,), daemon=True).start()


def _watch_driver(driver: int) -> None:
    """Exit as soon as the parent is no longer ``driver`` (it died; the worker was
    adopted). Covers systems without a parent-death signal, and the moment before the
    signal was armed."""
    while os.getppid() == driver:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel the queued runs and end the running ones now, not when they finish."""
    processes = list(pool._processes.values())  # no public API lists a pool's workers
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()


class LocalBackend:
    """A process pool on this machine (or in-process when one worker is asked for).

    Args:
        workers: parallel runs, >= 1 (None: one per CPU core).
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = (
            (os.cpu_count() or 1) if workers is None else check_int("workers", workers, 1)
        )

    def execute(self, jobs: Sequence[Job]) -> Generator[JobResult, None, None]:
        workers = min(self.workers, len(jobs))
        if workers <= 1:
            for job in jobs:
                yield from execute_job(job)
            return
        prepare()  # the compiled loops built once, here, not by each worker at once
        # spawn, not fork: forking a process whose torch already started threads can hang.
        context = multiprocessing.get_context("spawn")
        remember_registrations()
        pending, rounds = list(range(len(jobs))), 0
        while pending:
            pool = ProcessPoolExecutor(
                min(workers, len(pending)), mp_context=context, initializer=_init_worker,
                initargs=(os.getpid(),),
            )  # fmt: skip
            lost: list[int] = []
            try:
                futures = {pool.submit(execute_job, jobs[i]): i for i in pending}
                for future in as_completed(futures):
                    try:
                        results = future.result()
                    except BrokenProcessPool:  # a worker died: every unfinished job
                        lost.append(futures[future])
                        continue
                    yield from results
            except BaseException:  # Ctrl-C, SIGTERM, or the caller stopped listening
                _stop(pool)
                raise
            pool.shutdown()
            pending, rounds = sorted(lost), rounds + 1
            if pending and rounds > POOL_RETRIES:
                why = (f"its worker process died (killed, or out of memory) in {rounds} pools "
                       "in a row")  # fmt: skip
                for i in pending:
                    yield from (JobResult(spec, None, why) for spec, _ in jobs[i].runs)
                return
            if pending:
                warnings.warn(
                    f"a worker process died; {len(pending)} unfinished jobs start again in a "
                    "new pool, each run from its checkpoint",
                    UserWarning,
                    stacklevel=2,
                )


RAY_CONNECT_S = 60.0  # how long an existing cluster has to answer


def _connect(ray: Any, address: str, options: dict[str, Any]) -> None:
    """``ray.init`` on the cluster at ``address``; a UserError if it refuses, or does not
    answer within ``RAY_CONNECT_S`` (Ray itself retries an unreachable one for ever).
    It runs in a daemon thread, so that a process that gives up can still exit."""
    failed: list[BaseException] = []

    def connect() -> None:
        try:
            ray.init(address=address, **options)
        except BaseException as error:  # handed to the caller's thread
            failed.append(error)

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(RAY_CONNECT_S)
    if thread.is_alive():
        raise UserError(f"Ray cluster {address}: no answer within {RAY_CONNECT_S:g} s")
    if failed:
        raise UserError(f"Ray cluster {address}: cannot connect ({failed[0]})") from None


class RayBackend:
    """Each run as a Ray task on a local or existing cluster (``pip install memrnn[ray]``).

    Args:
        address: an existing cluster ("auto", "ray://host:10001"); None starts a local one.
        num_cpus: CPUs of the local cluster started when ``address`` is None.
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise UserError("the Ray backend needs Ray: pip install 'memrnn[ray]'") from None
        self._ray: Any = ray
        if not ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address is None:
                options["num_cpus"] = num_cpus
                ray.init(**options)
            else:
                _connect(ray, address, options)

    def execute(self, jobs: Sequence[Job]) -> Generator[JobResult, None, None]:
        ray = self._ray
        task = ray.remote(execute_job)
        pending = [
            task.options(num_cpus=job.threads, num_gpus=job.gpus).remote(job) for job in jobs
        ]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(done[0])
        except BaseException:  # as for the local pool: cancel what is queued or running
            for ref in pending:
                ray.cancel(ref, force=True)
            raise

    def shutdown(self) -> None:
        self._ray.shutdown()
