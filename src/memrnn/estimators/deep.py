"""The deep sequence baselines of Paassen, Schulz, Hammer (2021), section 4: GRU and SRNN.

"We trained all deep models with Adam with a learning rate of 1e-3, weight decay of
1e-8, and 10,000 epochs, where we processed a single word in each epoch. We used 256
neurons for each model in a single recurrent layer." ``DeepSequenceModel`` puts either
network (``memrnn.models.GRUNetwork``, ``memrnn.models.SuperpositionStackRNN``) behind
the sequence interface of ``EchoStateNetwork``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

import numpy as np
import torch
from sklearn.base import RegressorMixin
from sklearn.utils import Tags
from sklearn.utils.validation import check_is_fitted
from torch import Tensor, nn
from torch.nn.utils.rnn import pad_sequence

from memrnn.estimators.base import (
    Predictions,
    aligned_sequences,
    as_list,
    as_sequences,
    flat_targets,
    sequence_form,
    shaped_like,
)
from memrnn.estimators.conventions import (
    AnyRandomState,
    pooled_accuracy,
    pooled_r2,
    sequence_regressor_tags,
)
from memrnn.estimators.torch_estimator import (
    ProgressCallback,
    _TorchEstimator,
    check_binary_targets,
    check_float32,
    decide_outputs,
    output_values,
    seeded,
    torch_threads,
)
from memrnn.models.gru import GRUNetwork
from memrnn.models.stack_rnn import SuperpositionStackRNN
from memrnn.tasks.losses import VALUE_LOSSES, output_loss
from memrnn.validation import check_choice, check_int

_MODELS = ("gru", "srnn")


class DeepSequenceModel(RegressorMixin, _TorchEstimator):
    """A GRU or a stack RNN trained by Adam, one word per epoch (the paper's protocol).

    The sequence interface of ``EchoStateNetwork``: ``fit(X, Y)`` on lists of (T_i, n)
    inputs and (T_i, L) targets aligned step by step, ``predict(X)`` one (T_i, L) array
    per input; every sequence starts from the zero state.

    The parameters are stored as given and checked by :meth:`fit`; the attributes are
    set by :meth:`fit`.

    Args:
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
        random_state: an int seed for the initial weights and the word draws, a numpy
            Generator or RandomState to draw that seed from, or None for fresh entropy.
            Torch's global generator is forked, so the caller's random stream is left as
            it was.
        threads: torch's intra-op threads during ``fit`` and ``predict`` (the setting is
            process-wide, restored afterwards); None leaves it alone. One word per step
            is too little work to share: 1 thread was as fast as 2 at hidden 256, and
            much faster on a machine whose other core is busy.
        progress: None, or ``progress(epoch, loss)`` every 100 epochs and after the last,
            with the mean training loss since the previous call.

    Inputs are a list of (T_i, n) arrays, a 3-D array or one 2-D series (see
    ``memrnn.estimators.base``); ``predict`` answers in the same form. ``score`` is the
    share of 0/1 outputs predicted right over every step of every sequence for
    ``loss="bce"``, R^2 over every step pooled (averaged over the outputs) for ``"mse"``.

    Attributes:
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
        random_state: AnyRandomState = None,
        threads: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> None:
        self._store_params(locals())

    def __sklearn_tags__(self) -> Tags:
        tags = sequence_regressor_tags(super().__sklearn_tags__())
        tags.non_deterministic = self.random_state is None
        return tags

    def fit(self, X: object, Y: object) -> DeepSequenceModel:
        """Train on the sequences for ``epochs`` single-word Adam steps; returns self.

        Args:
            X: input sequences, each (T_i, n).
            Y: target sequences, each (T_i, L), aligned with X step by step; in [0, 1]
                for ``loss="bce"``.
        """
        xs, ys = aligned_sequences(X, Y)
        check_float32("X", xs)
        check_float32("Y", ys)
        check_choice("model", self.model, _MODELS)
        loss = check_choice("loss", self.loss, VALUE_LOSSES)
        if loss == "bce":
            check_binary_targets("Y", ys)
        hidden = check_int("hidden_size", self.hidden_size, 1)
        # the SRNN's stack sizes are checked for a GRU too: a bad value is a mistake anyway
        width = check_int("stack_width", self.stack_width, 1)
        depth = check_int("stack_depth", self.stack_depth, 1)
        how = self._check_training()
        n, n_out = xs[0].shape[1], ys[0].shape[1]
        module: nn.Module
        if self.model == "gru":
            module = seeded(how.seed, lambda: GRUNetwork(n, n_out, hidden))
        else:
            module = seeded(how.seed, lambda: SuperpositionStackRNN(n, n_out, hidden, width, depth))
        # copies: the sequences may be read-only arrays (the RSM benchmarks share theirs)
        inputs = [torch.tensor(x, dtype=torch.float32)[None] for x in xs]
        targets = [torch.tensor(y, dtype=torch.float32)[None] for y in ys]

        def word_loss(i: int) -> Tensor:
            return output_loss(loss, module(inputs[i]), targets[i])

        with torch_threads(how.threads):
            self.loss_curve_ = self._train(module, len(xs), word_loss, how)
        self.module_ = module
        self.n_features_in_ = n
        self.n_outputs_ = n_out
        self._flat = flat_targets(X, Y)
        return self

    @overload
    def predict(self, X: np.ndarray) -> np.ndarray: ...

    @overload
    def predict(self, X: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    @overload
    def predict(self, X: object) -> Predictions: ...

    def predict(self, X: object) -> Predictions:
        """The outputs (T_i, L) for each input sequence (T_i, n), in the form of X: 0/1
        for bce, raw for mse."""
        outputs = [decide_outputs(self.loss, y) for y in self._outputs(X)]
        return shaped_like(sequence_form(X), outputs, self._flat)

    @overload
    def predict_values(self, X: np.ndarray) -> np.ndarray: ...

    @overload
    def predict_values(self, X: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    @overload
    def predict_values(self, X: object) -> Predictions: ...

    def predict_values(self, X: object) -> Predictions:
        """The outputs (T_i, L) before the decision, in the form of X: the sigmoid
        probabilities for bce (the plain output whose error Paassen et al. report), the
        raw values for mse."""
        outputs = [output_values(self.loss, y) for y in self._outputs(X)]
        return shaped_like(sequence_form(X), outputs, self._flat)

    def score(self, X: object, y: object, sample_weight: None = None) -> float:
        """The share of 0/1 outputs predicted right (``loss="bce"``) or R^2 (``"mse"``),
        over every step of every sequence pooled."""
        if sample_weight is not None:
            raise ValueError("sample_weight: not supported, got an array")
        predictions = as_list(sequence_form(X), self.predict(X))
        ys = aligned_sequences(X, y)[1]
        if self.loss == "bce":
            return pooled_accuracy(ys, predictions)
        return pooled_r2(ys, predictions)

    def _outputs(self, X: object) -> list[np.ndarray]:
        """The network's outputs (T_i, L): logits for bce, raw values for mse."""
        check_is_fitted(self)
        xs = as_sequences("X", X, "features", self.n_features_in_, type(self).__name__)
        check_float32("X", xs)
        # the networks are causal: zeros padded after a sequence leave its outputs alone
        batch = pad_sequence([torch.tensor(x, dtype=torch.float32) for x in xs], batch_first=True)
        with torch_threads(self.threads), torch.no_grad():
            outputs = self.module_(batch).numpy()
        return [outputs[i, : x.shape[0]] for i, x in enumerate(xs)]
