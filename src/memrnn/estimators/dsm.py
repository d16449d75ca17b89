"""The deep stack machine of Paassen, Schulz, Hammer (2021), section 4, as a
scikit-learn estimator.

"A deep version of our reservoir stack machine (DSM), where we replace the reservoir
with a GRU": the network is ``memrnn.models.DeepStackMachineNetwork``. Training is
teacher forcing of the same stack traversal as ``rsm.teacher_forcing``, on torch
tensors, so that the gradient of all four heads' losses flows through the cell into both
h and g; each epoch is one word and one Adam step, as for the other deep baselines.
Prediction is the network's forward pass, Algorithm 2 with each head's argmax.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np
import torch
from sklearn.utils import Tags
from sklearn.utils.validation import check_is_fitted
from torch import Tensor, nn
from torch.nn.utils.rnn import pad_sequence

from memrnn.estimators.base import (
    Predictions,
    as_list,
    as_sequences,
    sequence_form,
    shaped_like,
    teaching_data,
)
from memrnn.estimators.conventions import AnyRandomState, negative_mae, stack_machine_tags
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
from memrnn.models.stack_machine import DeepStackMachineNetwork, GRUStack
from memrnn.tasks.losses import VALUE_LOSSES, ValueLoss, output_loss
from memrnn.tasks.stack_teacher import NO_PUSH, StackTeacher
from memrnn.validation import check_choice, check_int


@dataclass(frozen=True)
class _Word:
    """One training word as tensors, the closing (0, NO_PUSH) of each step included."""

    inputs: Tensor  # (T + 1, n), the last row the zero end symbol
    actions: list[list[tuple[int, int]]]
    shift: list[bool]
    pops: Tensor  # (A,) one per action
    pushes: Tensor  # (A,) the nonterminal index + 1, 0 for NO_PUSH
    shifts: Tensor  # (T + 1,)
    outputs: Tensor  # (T + 1, L)


def _word(i: int, x: np.ndarray, teacher: StackTeacher) -> _Word:
    """The tensors for ``teacher``; ValueError if it pops more than its stack holds."""
    shift = np.asarray(teacher.shift)
    if not np.all(np.isin(shift, (0, 1))):
        raise ValueError(f"y[{i}]: shift must hold 0 or 1 only")
    actions = [[(int(j), int(a)) for j, a in [*steps, (0, NO_PUSH)]] for steps in teacher.actions]
    length = 0
    for t, steps in enumerate(actions):
        for j, a in steps:
            if j > length:
                raise ValueError(
                    f"y[{i}]: action {(j, a)} at step {t} pops {j} symbols, the stack holds "
                    f"{length}"
                )
            length += (a != NO_PUSH) - j
        length += int(shift[t])
    flat = [action for steps in actions for action in steps]
    return _Word(
        inputs=torch.as_tensor(np.vstack([x, np.zeros((1, x.shape[1]))]), dtype=torch.float32),
        actions=actions,
        shift=[bool(s) for s in shift],
        pops=torch.tensor([j for j, _ in flat]),
        pushes=torch.tensor([a + 1 for _, a in flat]),
        # copies: a teacher's arrays may be read-only (the RSM benchmarks share theirs)
        shifts=torch.tensor(shift, dtype=torch.long),
        outputs=torch.tensor(np.asarray(teacher.outputs), dtype=torch.float32),
    )


def _teacher_forced_loss(
    net: DeepStackMachineNetwork, word: _Word, codes: Tensor, output: ValueLoss
) -> Tensor:
    """The four heads' losses along the teacher's stack traversal (``rsm.teacher_forcing``)."""
    h = net.cell.weight_hh.new_zeros(1, net.cell.hidden_size)
    stack = GRUStack(net.cell)
    action_h, action_g, step_h, step_g = [], [], [], []
    for t, steps in enumerate(word.actions):
        symbol = word.inputs[t : t + 1]
        h = net.cell(symbol, h)
        for j, a in steps:
            action_h.append(h)
            action_g.append(stack.state)
            stack.pop(j)
            if a != NO_PUSH:
                stack.push(codes[a : a + 1])
        step_h.append(h)
        step_g.append(stack.state)
        if word.shift[t]:
            stack.push(symbol)
    at_actions = torch.cat([torch.cat(action_h), torch.cat(action_g)], dim=1)
    at_steps = torch.cat([torch.cat(step_h), torch.cat(step_g)], dim=1)
    ce = nn.functional.cross_entropy
    return (
        ce(net.c_pop(at_actions), word.pops)
        + ce(net.c_push(at_actions), word.pushes)
        + ce(net.c_shift(at_steps), word.shifts)
        + output_loss(output, net.c_out(at_steps), word.outputs)
    )


class DeepStackMachine(_TorchEstimator):
    """The reservoir stack machine with a trained GRU cell in place of the reservoir.

    The interface of ``ReservoirStackMachine``: ``fit(X, y, nonterminals=...)`` with one
    :class:`~memrnn.tasks.stack_teacher.StackTeacher` per input sequence, ``predict(X)`` the
    outputs y_1 .. y_{T+1}, (T_i + 1, L), by Algorithm 2 with each head's argmax as its
    decision.

    The parameters are stored as given and checked by :meth:`fit`; the attributes are
    set by :meth:`fit`.

    Args:
        hidden_size: neurons of the GRU cell (256 in the paper).
        epochs, lr, weight_decay, random_state, threads, progress: as for
            :class:`~memrnn.estimators.DeepSequenceModel`: one teacher-forced word
            drawn at random per Adam step.
        output: c_out's loss, ``"bce"`` for 0/1 outputs (``predict`` gives 1 where the
            sigmoid exceeds 0.5, else 0) or ``"mse"`` for real outputs (raw values).
        max_actions: the most pop/push iterations per step in prediction before it stops
            trusting the heads (they could otherwise loop), as in the RSM.

    The training loss of a word is the sum of the mean cross entropies of c_pop (classes
    0 .. the largest pop count in the training teachers), c_push (NO_PUSH or one of the
    nonterminals) and c_shift, and of c_out's mean output loss.

    Inputs are a list of (T_i, n) arrays, a 3-D array or one 2-D series (see
    ``memrnn.estimators.base``); ``predict`` answers in the same form. ``score`` is minus
    the mean absolute error of ``predict`` against the teachers' outputs, over every
    output of every step.

    Attributes:
        module_: the trained ``torch.nn.Module`` (float32, CPU): ``cell``, ``c_pop``,
            ``c_push``, ``c_shift``, ``c_out``.
        nonterminals_: (K, n) the vectors pushed for nonterminal indices 0 .. K-1.
        loss_curve_: (epochs,) the training loss of each epoch's word.
        n_features_in_, n_outputs_: the input width n and the output width L.
    """

    def __init__(
        self,
        hidden_size: int = 256,
        *,
        epochs: int = 10000,
        lr: float = 1e-3,
        weight_decay: float = 1e-8,
        output: str = "bce",
        max_actions: int = 100,
        random_state: AnyRandomState = None,
        threads: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> None:
        self._store_params(locals())

    def __sklearn_tags__(self) -> Tags:
        tags = stack_machine_tags(super().__sklearn_tags__())
        tags.non_deterministic = self.random_state is None
        return tags

    def fit(
        self, X: object, y: Sequence[StackTeacher], *, nonterminals: np.ndarray
    ) -> DeepStackMachine:
        """Train the cell and the heads by teacher forcing, one word per epoch; returns self.

        Args:
            X: input sequences, each (T_i, n).
            y: the desired stack behaviour and outputs for each sequence.
            nonterminals: (K, n) the vectors pushed for nonterminal indices 0 .. K-1.
        """
        xs, y, codes = teaching_data(X, y, nonterminals)
        n = xs[0].shape[1]
        outputs = as_sequences("y.outputs", [t.outputs for t in y], "outputs")
        check_float32("X", xs)
        check_float32("y.outputs", outputs)
        check_float32("nonterminals", list(codes))
        output = check_choice("output", self.output, VALUE_LOSSES)
        if output == "bce":
            check_binary_targets("y.outputs", outputs)
        hidden = check_int("hidden_size", self.hidden_size, 1)
        check_int("max_actions", self.max_actions, 1)
        how = self._check_training()
        words = [_word(i, x, t) for i, (x, t) in enumerate(zip(xs, y, strict=True))]
        max_pop = max(int(w.pops.max()) for w in words)
        n_out = outputs[0].shape[1]
        symbols = torch.tensor(codes, dtype=torch.float32)  # a copy: codes may be read-only
        net = seeded(
            how.seed,
            lambda: DeepStackMachineNetwork(
                n, n_out, hidden, nonterminals=symbols, max_pop=max_pop,
                max_actions=self.max_actions,
            ),
        )  # fmt: skip

        def word_loss(i: int) -> Tensor:
            return _teacher_forced_loss(net, words[i], symbols, output)

        with torch_threads(how.threads):
            self.loss_curve_ = self._train(net, len(words), word_loss, how)
        self.module_ = net
        self.nonterminals_ = codes
        self.n_features_in_ = n
        self.n_outputs_ = n_out
        return self

    @overload
    def predict(self, X: np.ndarray) -> np.ndarray: ...

    @overload
    def predict(self, X: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    @overload
    def predict(self, X: object) -> Predictions: ...

    def predict(self, X: object) -> Predictions:
        """The outputs y_1 .. y_{T+1}, (T_i + 1, L), for each input sequence (Algorithm 2),
        in the form of X.

        The sequences run in lockstep so that each head and each cell step is batched
        over them; each sequence still follows Algorithm 2 on its own. Outputs are 0/1
        for ``output="bce"`` and raw for ``"mse"``.
        """
        outputs = [decide_outputs(self.output, r) for r in self._outputs(X)]
        return shaped_like(sequence_form(X), outputs, flat=False)

    @overload
    def predict_values(self, X: np.ndarray) -> np.ndarray: ...

    @overload
    def predict_values(self, X: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    @overload
    def predict_values(self, X: object) -> Predictions: ...

    def predict_values(self, X: object) -> Predictions:
        """The outputs before ``predict``'s decision, in the form of X: the sigmoid
        probabilities for ``output="bce"`` (the plain output whose error Paassen et al.
        report), the raw values for ``"mse"``."""
        outputs = [output_values(self.output, r) for r in self._outputs(X)]
        return shaped_like(sequence_form(X), outputs, flat=False)

    def score(self, X: object, y: Sequence[StackTeacher], sample_weight: None = None) -> float:
        """Minus the mean absolute error of the outputs for X against the outputs of the
        teachers y, over every output of every step of every sequence."""
        if sample_weight is not None:
            raise ValueError("sample_weight: not supported, got an array")
        predictions = as_list(sequence_form(X), self.predict(X))
        _, teachers, _ = teaching_data(X, y, self.nonterminals_)
        return negative_mae([np.asarray(t.outputs) for t in teachers], predictions)

    def _outputs(self, X: object) -> list[np.ndarray]:
        check_is_fitted(self)
        xs = as_sequences("X", X, "features", self.n_features_in_, type(self).__name__)
        check_float32("X", xs)
        end = np.zeros((1, self.n_features_in_))
        words = [torch.as_tensor(np.vstack([x, end]), dtype=torch.float32) for x in xs]
        lengths = [len(word) for word in words]
        with torch_threads(self.threads), torch.no_grad():
            outputs = self.module_(
                pad_sequence(words, batch_first=True), lengths=lengths, max_actions=self.max_actions
            )
        return [outputs[i, :length].numpy() for i, length in enumerate(lengths)]
