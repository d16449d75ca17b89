"""What the PyTorch estimators share: Adam on one random word per epoch (the protocol of
Paassen, Schulz, Hammer 2021, section 4), seeding, threads, and the output kinds (their
losses are the tasks', ``memrnn.tasks.losses.output_loss``).

Everything runs on the CPU in float32: one word per Adam step is too small a batch for
an accelerator to pay off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import torch
from sklearn.base import BaseEstimator
from torch import Tensor, nn

from memrnn.estimators.base import store_params
from memrnn.estimators.conventions import AnyRandomState, as_seed
from memrnn.training import LoopSettings, StepReport, train_loop
from memrnn.training.optimizers import make_optimizer
from memrnn.validation import check_float, check_int

ProgressCallback = Callable[[int, float], None]
"""Called as ``progress(epoch, loss)``: the mean training loss since the last call."""

PROGRESS_EVERY = 100  # epochs between progress calls (and one after the last epoch)

ModuleT = TypeVar("ModuleT", bound=nn.Module)


@dataclass(frozen=True)
class _Training:
    """The checked training hyperparameters of a deep estimator."""

    epochs: int
    lr: float
    weight_decay: float
    seed: int
    threads: int | None
    progress: ProgressCallback | None


class _TorchEstimator(BaseEstimator):
    """What the deep estimators share: Adam on one random word per epoch, seeding, threads.

    Subclasses list ``epochs``, ``lr``, ``weight_decay``, ``random_state``, ``threads``
    and ``progress`` in their ``__init__`` (scikit-learn reads the parameters there).
    """

    epochs: int
    lr: float
    weight_decay: float
    random_state: AnyRandomState
    threads: int | None
    progress: ProgressCallback | None

    _store_params = store_params

    def _check_training(self) -> _Training:
        seed = as_seed("random_state", self.random_state)
        if self.progress is not None and not callable(self.progress):
            raise ValueError(f"progress: expected a callable or None, got {self.progress!r}")
        return _Training(
            epochs=check_int("epochs", self.epochs, 1),
            lr=check_float("lr", self.lr, above=0),
            weight_decay=check_float("weight_decay", self.weight_decay, 0),
            seed=seed,
            threads=None if self.threads is None else check_int("threads", self.threads, 1),
            progress=self.progress,
        )

    def _train(
        self, module: nn.Module, n_words: int, word_loss: Callable[[int], Tensor], how: _Training
    ) -> np.ndarray:
        """Adam on ``word_loss(i)`` of one word ``i`` drawn per epoch; the per-epoch losses."""
        optimizer = make_optimizer("adam", module.parameters(), how.lr, how.weight_decay)
        # all words drawn up front, in one call, as the estimators have always drawn them
        words = np.random.default_rng(how.seed).integers(n_words, size=how.epochs)
        curve = np.empty(how.epochs)
        reported = 0

        def record(step: StepReport) -> None:
            nonlocal reported
            curve[step.step - 1] = step.loss
            if how.progress is not None and (
                step.step % PROGRESS_EVERY == 0 or step.step == how.epochs
            ):
                how.progress(step.step, float(curve[reported : step.step].mean()))
                reported = step.step

        train_loop(
            _OneWordPerEpoch(module, words, word_loss),
            optimizer,
            LoopSettings(steps=how.epochs, monitor="train_loss"),
            data_rng=np.random.default_rng(how.seed),
            eval_rng=lambda step: np.random.default_rng([how.seed, step]),
            on_step=record,
        )
        return curve


class _OneWordPerEpoch:
    """A deep estimator as the training loop sees it: epoch e trains on the word words[e]
    and nothing is evaluated on the way (the loop's last evaluation is the training loss)."""

    def __init__(
        self, model: nn.Module, words: np.ndarray, word_loss: Callable[[int], Tensor]
    ) -> None:
        self.model = model
        self._words = iter(words.tolist())
        self._word_loss = word_loss

    def training_batch(self, rng: np.random.Generator) -> int:
        return next(self._words)

    def loss(self, batch: int) -> Tensor:
        return self._word_loss(batch)

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        return {}


def seeded(seed: int, build: Callable[[], ModuleT]) -> ModuleT:
    """``build()`` with torch's CPU generator seeded by ``seed``, restored afterwards.

    Module constructors draw their initial weights from the global generator; forking it
    keeps the caller's random stream as it was.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build()


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``threads`` intra-op threads (None: leave torch's setting)."""
    if threads is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def decide_outputs(kind: str, outputs: np.ndarray) -> np.ndarray:
    """0/1 where the probability exceeds 0.5 (``"bce"``); the raw outputs (``"mse"``)."""
    if kind == "bce":
        return (outputs > 0).astype(np.float64)
    return outputs.astype(np.float64)


def output_values(kind: str, outputs: np.ndarray) -> np.ndarray:
    """The outputs before any decision: the sigmoid probabilities of the logits
    (``"bce"``); the raw outputs (``"mse"``)."""
    values = outputs.astype(np.float64)
    if kind == "bce":
        return 1.0 / (1.0 + np.exp(-values))
    return values


FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_float32(name: str, arrays: Sequence[np.ndarray]) -> None:
    """The networks run in float32: raise ValueError naming ``name[i]`` for a value whose
    magnitude exceeds float32's largest, which the cast would turn into inf."""
    for i, a in enumerate(arrays):
        if a.size and float(np.abs(a).max()) > FLOAT32_MAX:
            raise ValueError(
                f"{name}[{i}]: holds {float(np.abs(a).max()):g}, beyond float32's largest "
                f"{FLOAT32_MAX:g} (the networks run in float32)"
            )


def check_binary_targets(name: str, targets: Sequence[np.ndarray]) -> None:
    """BCE needs targets in [0, 1]; raise ValueError naming ``name[i]`` otherwise."""
    for i, y in enumerate(targets):
        if np.any((y < 0) | (y > 1)):
            raise ValueError(f"{name}[{i}]: bce needs targets in [0, 1] (use mse otherwise)")
