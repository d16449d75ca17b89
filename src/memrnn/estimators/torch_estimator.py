"""What the PyTorch estimators share: Adam on one random word per epoch (the protocol of
Paassen, Schulz, Hammer 2021, section 4), seeding, threads, and the output losses.

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
from memrnn.reservoir.reservoirs import _check_float, _check_int

ProgressCallback = Callable[[int, float], None]
"""Called as ``progress(epoch, loss)``: the mean training loss since the last call."""

PROGRESS_EVERY = 100  # epochs between progress calls (and one after the last epoch)

ModuleT = TypeVar("ModuleT", bound=nn.Module)

_LOSSES = ("bce", "mse")


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
    random_state: int | None
    threads: int | None
    progress: ProgressCallback | None

    _store_params = store_params

    def _check_training(self) -> _Training:
        if self.random_state is None:
            seed = int(np.random.default_rng().integers(2**63))
        else:
            seed = _check_int("random_state", self.random_state, minimum=0)
        if self.progress is not None and not callable(self.progress):
            raise ValueError(f"progress: expected a callable or None, got {self.progress!r}")
        return _Training(
            epochs=_check_int("epochs", self.epochs),
            lr=_check_float("lr", self.lr, positive=True),
            weight_decay=_check_float("weight_decay", self.weight_decay, nonnegative=True),
            seed=seed,
            threads=None if self.threads is None else _check_int("threads", self.threads),
            progress=self.progress,
        )

    def _train(
        self, module: nn.Module, n_words: int, word_loss: Callable[[int], Tensor], how: _Training
    ) -> np.ndarray:
        """Adam on ``word_loss(i)`` of one word ``i`` drawn per epoch; the per-epoch losses."""
        optimizer = torch.optim.Adam(module.parameters(), lr=how.lr, weight_decay=how.weight_decay)
        words = np.random.default_rng(how.seed).integers(n_words, size=how.epochs)
        curve = np.empty(how.epochs)
        reported = 0
        module.train()
        for epoch, i in enumerate(words.tolist(), start=1):
            loss = word_loss(i)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            curve[epoch - 1] = loss.item()
            if how.progress is not None and (epoch % PROGRESS_EVERY == 0 or epoch == how.epochs):
                how.progress(epoch, float(curve[reported:epoch].mean()))
                reported = epoch
        module.eval()
        return curve


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


def output_loss(kind: str, outputs: Tensor, targets: Tensor) -> Tensor:
    """Binary cross entropy on logits (``"bce"``) or the mean squared error (``"mse"``)."""
    if kind == "bce":
        return nn.functional.binary_cross_entropy_with_logits(outputs, targets)
    return nn.functional.mse_loss(outputs, targets)


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


def check_output_kind(name: str, kind: object) -> str:
    """The output loss ``kind`` if it is one of ``bce``/``mse``; else a ValueError."""
    if kind not in _LOSSES:
        raise ValueError(f"{name}: expected one of {_LOSSES}, got {kind!r}")
    return str(kind)


def check_binary_targets(name: str, targets: Sequence[np.ndarray]) -> None:
    """BCE needs targets in [0, 1]; raise ValueError naming ``name[i]`` otherwise."""
    for i, y in enumerate(targets):
        if np.any((y < 0) | (y > 1)):
            raise ValueError(f"{name}[{i}]: bce needs targets in [0, 1] (use mse otherwise)")
