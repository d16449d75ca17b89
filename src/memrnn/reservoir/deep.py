"""The deep baselines of Paassen, Schulz, Hammer (2021), section 4: GRU and SRNN.

"We trained all deep models with Adam with a learning rate of 1e-3, weight decay of
1e-8, and 10,000 epochs, where we processed a single word in each epoch. We used 256
neurons for each model in a single recurrent layer." ``DeepSequenceModel`` wraps either
network in the sequence interface of ``EchoStateNetwork``; the training helpers here are
shared with the deep stack machine (``memrnn.reservoir.dsm``).

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
from sklearn.utils.validation import check_is_fitted
from torch import Tensor, nn
from torch.nn.utils.rnn import pad_sequence

from memrnn.models.stack_rnn import SuperpositionStackRNN
from memrnn.reservoir.esn import _as_sequences, store_params
from memrnn.reservoir.reservoirs import _check_float, _check_int

ProgressCallback = Callable[[int, float], None]
"""Called as ``progress(epoch, loss)``: the mean training loss since the last call."""

PROGRESS_EVERY = 100  # epochs between progress calls (and one after the last epoch)

ModuleT = TypeVar("ModuleT", bound=nn.Module)

_MODELS = ("gru", "srnn")
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


class _GRUNet(nn.Module):
    """A one-layer GRU and a linear readout: logits (B, T, L) for inputs (B, T, n)."""

    def __init__(self, n_inputs: int, n_outputs: int, hidden_size: int) -> None:
        super().__init__()
        self.gru = nn.GRU(n_inputs, hidden_size, batch_first=True)
        self.readout = nn.Linear(hidden_size, n_outputs)

    def forward(self, inputs: Tensor) -> Tensor:
        states, _ = self.gru(inputs)
        return self.readout(states)


class _SRNNNet(nn.Module):
    """Suzgun et al.'s stack RNN with a tanh cell: logits (B, T, L) for inputs (B, T, n)."""

    def __init__(
        self, n_inputs: int, n_outputs: int, hidden_size: int, stack_width: int, stack_depth: int
    ) -> None:
        super().__init__()
        self.srnn = SuperpositionStackRNN(
            n_inputs, n_outputs, hidden_size, stack_width, stack_depth
        )

    def forward(self, inputs: Tensor) -> Tensor:
        return self.srnn(inputs).logits


class DeepSequenceModel(_TorchEstimator):
    """A GRU or a stack RNN trained by Adam, one word per epoch (the paper's protocol).

    The sequence interface of ``EchoStateNetwork``: ``fit(X, Y)`` on lists of (T_i, n)
    inputs and (T_i, L) targets aligned step by step, ``predict(X)`` one (T_i, L) array
    per input; every sequence starts from the zero state.

    Parameters (stored as given; checked by :meth:`fit`):
        model: ``"gru"`` (``torch.nn.GRU``, one layer, and a linear readout) or
            ``"srnn"`` (:class:`~memrnn.models.SuperpositionStackRNN` with Suzgun et al.'s
            tanh RNN cell and softmax push/pop gate).
        hidden_size: neurons of the recurrent layer (256 in the paper).
        epochs: Adam steps; each takes one training word drawn at random (with
            replacement).
        lr, weight_decay: Adam's learning rate and (L2) weight decay.
        loss: ``"bce"`` for 0/1 targets (binary cross entropy on the logits; ``predict``
            gives 1 where the sigmoid exceeds 0.5, else 0, and ``predict_values`` the
            sigmoid itself) or ``"mse"`` for real targets (both give the raw outputs).
        stack_width, stack_depth: the SRNN's stack, rows of ``stack_width`` values and
            ``stack_depth`` rows; the defaults 5 and 104 are those of Suzgun et al.'s
            reference implementation (``memory_dim``, ``memory_size``). Unused for GRU.
        random_state: an int seed for the initial weights and the word draws, or None
            for fresh entropy. Torch's global generator is forked, so the caller's random
            stream is left as it was.
        threads: torch's intra-op threads during ``fit`` and ``predict`` (the setting is
            process-wide, restored afterwards); None leaves it alone. One word per step
            is too little work to share: 1 thread was as fast as 2 at hidden 256, and
            much faster on a machine whose other core is busy.
        progress: None, or ``progress(epoch, loss)`` every 100 epochs and after the last,
            with the mean training loss since the previous call.

    Attributes after :meth:`fit`:
        module_: the trained ``torch.nn.Module`` (float32, CPU, in eval mode).
        loss_curve_: (epochs,) the training loss of each epoch's word.
        n_features_in_, n_outputs_: the input width n and the output width L.

    >>> import numpy as np
    >>> X = [np.eye(2)[[0, 1, 1, 0]]]
    >>> Y = [np.array([[0.0], [1.0], [1.0], [0.0]])]
    >>> model = DeepSequenceModel("gru", 8, epochs=3, random_state=0).fit(X, Y)
    >>> [p.shape for p in model.predict(X + X[:1])]
    [(4, 1), (4, 1)]
    """

    def __init__(
        self,
        model: str = "gru",
        hidden_size: int = 256,
        *,
        epochs: int = 10000,
        lr: float = 1e-3,
        weight_decay: float = 1e-8,
        loss: str = "bce",
        stack_width: int = 5,
        stack_depth: int = 104,
        random_state: int | None = None,
        threads: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> None:
        self._store_params(locals())

    def fit(self, X: Sequence[np.ndarray], Y: Sequence[np.ndarray]) -> DeepSequenceModel:
        """Train on the sequences for ``epochs`` single-word Adam steps; returns self.

        Args:
            X: input sequences, each (T_i, n).
            Y: target sequences, each (T_i, L), aligned with X step by step; in [0, 1]
                for ``loss="bce"``.
        """
        xs = _as_sequences("X", X, "features")
        ys = _as_sequences("Y", Y, "outputs")
        if len(ys) != len(xs):
            raise ValueError(f"Y: has {len(ys)} sequences but X has {len(xs)}")
        for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
            if y.shape[0] != x.shape[0]:
                raise ValueError(f"Y[{i}]: has {y.shape[0]} time steps but X[{i}] has {x.shape[0]}")
        if self.model not in _MODELS:
            raise ValueError(f"model: expected one of {_MODELS}, got {self.model!r}")
        loss = check_output_kind("loss", self.loss)
        if loss == "bce":
            check_binary_targets("Y", ys)
        hidden = _check_int("hidden_size", self.hidden_size)
        how = self._check_training()
        n, n_out = xs[0].shape[1], ys[0].shape[1]
        module: nn.Module
        if self.model == "gru":
            module = seeded(how.seed, lambda: _GRUNet(n, n_out, hidden))
        else:
            width = _check_int("stack_width", self.stack_width)
            depth = _check_int("stack_depth", self.stack_depth)
            module = seeded(how.seed, lambda: _SRNNNet(n, n_out, hidden, width, depth))
        inputs = [torch.as_tensor(x, dtype=torch.float32)[None] for x in xs]
        targets = [torch.as_tensor(y, dtype=torch.float32)[None] for y in ys]

        def word_loss(i: int) -> Tensor:
            return output_loss(loss, module(inputs[i]), targets[i])

        with torch_threads(how.threads):
            self.loss_curve_ = self._train(module, len(xs), word_loss, how)
        self.module_ = module
        self.n_features_in_ = n
        self.n_outputs_ = n_out
        return self

    def predict(self, X: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The outputs (T_i, L) for each input sequence (T_i, n): 0/1 for bce, raw for mse."""
        return [decide_outputs(self.loss, y) for y in self._outputs(X)]

    def predict_values(self, X: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The outputs (T_i, L) before the decision: the sigmoid probabilities for bce (the
        plain output whose error Paassen et al. report), the raw values for mse."""
        return [output_values(self.loss, y) for y in self._outputs(X)]

    def _outputs(self, X: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The network's outputs (T_i, L): logits for bce, raw values for mse."""
        check_is_fitted(self)
        xs = _as_sequences("X", X, "features", self.n_features_in_, "the fitted model")
        # the networks are causal: zeros padded after a sequence leave its outputs alone
        batch = pad_sequence(
            [torch.as_tensor(x, dtype=torch.float32) for x in xs], batch_first=True
        )
        with torch_threads(self.threads), torch.no_grad():
            outputs = self.module_(batch).numpy()
        return [outputs[i, : x.shape[0]] for i, x in enumerate(xs)]
