"""What a training run shows while it runs: a progress bar on stderr and, when asked
(``--tensorboard DIR``), TensorBoard event files of its training loss and its metrics,
written by ``torch.utils.tensorboard`` (the optional extra ``memrnn[tensorboard]``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tqdm import tqdm

from memrnn.errors import UserError
from memrnn.runner.train import Progress


def tensorboard_writer(folder: Path) -> Any:
    """A ``torch.utils.tensorboard.SummaryWriter`` writing to ``folder``.

    Raises:
        UserError: TensorBoard is not installed, or ``folder`` cannot be written.
    """
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise UserError(
            f"--tensorboard {folder}: TensorBoard is not installed; "
            "`pip install 'memrnn[tensorboard]'` installs it"
        ) from None
    try:
        return SummaryWriter(log_dir=str(folder))
    except OSError as error:
        raise UserError(
            f"--tensorboard {folder}: cannot write there ({error.strerror or error})"
        ) from None


class ProgressBar:
    """A run's progress: the bar, made once the run starts (so an error before it shows
    none), and the TensorBoard events, if a writer is given."""

    def __init__(self, total: int, quiet: bool, writer: Any = None) -> None:
        self.total, self.quiet, self.writer = total, quiet, writer
        self.bar: tqdm[None] | None = None

    def start(self) -> None:
        # Redirected to a file, a line every 30 s rather than a redraw every step.
        every = 0.1 if sys.stderr.isatty() else 30.0
        self.bar = tqdm(total=self.total, unit="step", file=sys.stderr, disable=self.quiet,
                        mininterval=every)  # fmt: skip

    def show(self, p: Progress) -> None:
        if self.bar is not None:
            loss, speed = f"{p.loss:.4f}", f"{p.sequences_per_second:.0f}"
            self.bar.set_postfix(loss=loss, seq_per_s=speed, refresh=False)
            self.bar.update(p.step - self.bar.n)  # redraws at most every mininterval
        if self.writer is not None:
            self.writer.add_scalar("train/loss", p.loss, p.step)
            for name, value in sorted((p.metrics or {}).items()):
                self.writer.add_scalar(f"eval/{name}", value, p.step)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        if self.writer is not None:
            self.writer.close()


@contextmanager
def progress_bar(total: int, quiet: bool, tensorboard: Path | None = None) -> Iterator[ProgressBar]:
    """A :class:`ProgressBar` of ``total`` steps (none shown with ``quiet``), writing
    TensorBoard events to ``tensorboard`` if given, closed at the end."""
    bar = ProgressBar(total, quiet, tensorboard_writer(tensorboard) if tensorboard else None)
    try:
        yield bar
    finally:
        bar.close()
