"""One run trained into an output folder, as ``memrnn train`` and ``memrnn fit`` do: the
folder locked, its results store told the run started, then finished, failed or was
interrupted, its checkpoint kept for ``--resume``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memrnn.experiments.base import Experiment, RunOutput, RunSpec
from memrnn.experiments.config import TrainConfig
from memrnn.io import remove_stale_temporaries
from memrnn.runner.lock import folder_lock
from memrnn.runner.reproduce import STORE_NAME, checkpoint_path
from memrnn.runner.store import ResultsStore
from memrnn.runner.train import Progress, run
from memrnn.runner.version import code_version


def train_into(
    out: Path,
    experiment: Experiment[Any],
    spec: RunSpec,
    config: TrainConfig,
    *,
    data: Path | None,
    resume: bool,
    on_start: Callable[[], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutput:
    """Carry out the run ``spec`` (its settings ``config``) of ``experiment`` with its
    checkpoint and record in ``out``; ``on_start`` is called once the folder is locked
    and before training starts. Without ``resume`` the run starts over.

    Raises:
        UserError: another process works in ``out``, or its store is damaged.
    """
    checkpoint = checkpoint_path(out, spec)
    with folder_lock(out), ResultsStore(out / STORE_NAME) as store:
        for folder in (out, data):  # what writes killed before their rename left
            if folder is not None:
                remove_stale_temporaries(folder)
        if not resume:
            checkpoint.unlink(missing_ok=True)
        elif not checkpoint.exists():
            warnings.warn(
                f"--resume: no checkpoint of run {spec.name} with these settings in {out}; "
                "it starts from step 0",
                UserWarning,
                stacklevel=2,
            )
        if on_start is not None:
            on_start()
        store.start(spec, code_version())
        try:
            output = run(
                experiment,
                config,
                data=data,
                checkpoint=checkpoint,
                resume=resume,
                on_progress=on_progress,
            )
        except Exception as error:
            store.fail(spec, repr(error))
            raise
        except BaseException:  # Ctrl-C or SIGTERM: --resume continues from the checkpoint
            store.interrupt(spec)
            raise
        store.finish(spec, output)
    return output
