"""The deep sequence baselines of Paassen, Schulz, Hammer (2021), section 4: GRU and SRNN.

"We trained all deep models with Adam with a learning rate of 1e-3, weight decay of
1e-8, and 10,000 epochs, where we processed a single word in each epoch. We used 256
neurons for each model in a single recurrent layer." ``DeepSequenceModel`` puts either
network (``memrnn.models.GRUNetwork``, ``memrnn.models.SuperpositionStackRNN``) behind
the sequence interface of ``EchoStateNetwork``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from sklearn.utils.validation import check_is_fitted
from torch import Tensor, nn
from torch.nn.utils.rnn import pad_sequence

from memrnn.estimators.base import aligned_sequences, as_sequences
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


class DeepSequenceModel(_TorchEstimator):
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
        random_state: an int seed for the initial weights and the word draws, or None
            for fresh entropy. Torch's global generator is forked, so the caller's random
            stream is left as it was.
        threads: torch's intra-op threads during ``fit`` and ``predict`` (the setting is
            process-wide, restored afterwards); None leaves it alone. One word per step
            is too little work to share: 1 thread was as fast as 2 at hidden 256, and
            much faster on a machine whose other core is busy.
        progress: None, or ``progress(epoch, loss)`` every 100 epochs and after the last,
            with the mean training loss since the previous call.

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
        xs = as_sequences("X", X, "features", self.n_features_in_, "the fitted model")
        check_float32("X", xs)
        # the networks are causal: zeros padded after a sequence leave its outputs alone
        batch = pad_sequence(
            [torch.as_tensor(x, dtype=torch.float32) for x in xs], batch_first=True
        )
        with torch_threads(self.threads), torch.no_grad():
            outputs = self.module_(batch).numpy()
        return [outputs[i, : x.shape[0]] for i, x in enumerate(xs)]
