"""The Fast Weights RNN of Ba et al. (2016), *Using Fast Weights to Attend to the
Recent Past*.

A ReLU RNN with a fast weight memory A_t = lambda A_{t-1} + eta h_t h_t^T, reset to 0 for
every sequence. At each step an inner loop of S steps settles the new state towards what
the memory recalls for it:

    h^0_t = f(W h_{t-1} + C x_t)
    h^{s+1}_t = f(LN[W h_{t-1} + C x_t + A_{t-1} h^s_t]),    h_t = h^S_t

with f = ReLU and LN a layer normalisation over the hidden units of each example. That is
the paper's equation (``norm="sum"``). Wayman's course report on fast weights (Michigan
State University, CSE 847) writes LN(W h_{t-1} + C x_t) + A_{t-1} h^s_t instead
(``norm="slow"``); with it nothing bounds the fast term, which feeds on |h|^2, and
training at R = 20 reached NaN within 500 Adam steps (measured with the experiment's
settings), so the paper's placement is the default.
A_{t-1}
is never built: A_{t-1} h = eta sum_{tau < t} lambda^{t-1-tau} h_tau (h_tau^T h), a
weighted sum over the past states (the "attention" form). Its backward is written out
(``_FastTerm``) so that it keeps only the past states themselves, O(T R) numbers per
sequence, where autograd through the matrix form would keep a B x R x R matrix per step.
``form="matrix"`` computes the literal A_t instead; the tests check the two agree.

The model takes an initial state and streams (``ReadoutRNN``): its state, a
``FastWeightsState``, is h_t and the fast memory, the past states A_t is made of (they
grow by one per step) or, in the matrix form, A_t itself.
"""

from __future__ import annotations

from typing import Any, Literal

import torch
from torch import Tensor, nn

from memrnn.models.baselines import scaled_identity
from memrnn.models.embedding import InputEmbedding
from memrnn.models.readout import ReadoutRNN, make_readout
from memrnn.models.state import FastWeightsState, check_part, check_type
from memrnn.structures.precision import at_full_precision, full_precision_backward
from memrnn.validation import check_choice, check_float, check_sizes

Form = Literal["attention", "matrix"]
Norm = Literal["sum", "slow"]


class _FastTerm(torch.autograd.Function):
    """A_{t-1} h = sum_tau w_tau h_tau (h_tau . h) for weights w (t,), h (B, R) and the
    past states h_tau (B, R) each; it saves only references to its inputs.

    Eagerly, the dot products h_tau . v are taken as one row v^T times H^T, (B, 1, R) @
    (B, R, t): MKL computes that orientation 2-9 times faster than H v, (B, t, R) @
    (B, R, 1), at the sizes of Ba et al.'s task and of the generalisation matrix (R 20-100,
    t up to 80). Under ``torch.compile`` the einsum stays: inductor's step was 1.4 times
    slower with the row form."""

    generate_vmap_rule = True  # a group's members run it under torch.func.vmap

    @staticmethod
    def forward(weights: Tensor, h: Tensor, *past: Tensor) -> Tensor:
        return at_full_precision(_fast_term, weights, h, *past)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Tensor, ...], output: Tensor) -> None:
        ctx.save_for_backward(*inputs)

    @staticmethod
    @full_precision_backward
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        # as the forward computed: saved autocast inputs widened to the gradient's float32
        weights, h, *past = (x.to(grad.dtype) for x in ctx.saved_tensors)
        H = torch.stack(past, dim=1)
        scores = _dots(H, h) * weights  # w_tau (h_tau . h)
        grad_scores = _dots(H, grad) * weights  # w_tau (h_tau . grad)
        grad_h = _mix(grad_scores, H)  # the map is symmetric in h
        grad_H = scores[..., None] * grad[:, None, :] + grad_scores[..., None] * h[:, None, :]
        return (None, grad_h, *grad_H.unbind(dim=1))


def _fast_term(weights: Tensor, h: Tensor, *past: Tensor) -> Tensor:
    H = torch.stack(past, dim=1)  # (B, t, R): a temporary, not saved
    return _mix(_dots(H, h) * weights, H)


def _dots(H: Tensor, v: Tensor) -> Tensor:
    """h_tau . v for every past state: (B, t) from H (B, t, R) and v (B, R)."""
    if torch.compiler.is_compiling():
        return torch.einsum("btr,br->bt", H, v)
    return torch.bmm(v[:, None, :], H.transpose(1, 2))[:, 0]


def _mix(scores: Tensor, H: Tensor) -> Tensor:
    """sum_tau scores_tau h_tau: (B, R) from scores (B, t) and H (B, t, R)."""
    if torch.compiler.is_compiling():
        return torch.einsum("bt,btr->br", scores, H)
    return torch.bmm(scores[:, None, :], H)[:, 0]  # the einsum's product, less dispatch


class FastWeightsRNN(ReadoutRNN[FastWeightsState]):
    """The Fast Weights RNN on token ids or vectors, with the readout of Ba et al. (2016);
    its features are the states h_t (B, T, R). Its state is a ``FastWeightsState``: h_0 = 0
    and an empty fast memory (A_0 = 0) to start.

    Args:
        input_size, output_size, hidden_size, readout: as for ``ReadoutRNN`` (for token
            ids x_t is one-hot, so C x_t is an embedding lookup).
        decay: lambda, the fast memory's decay (0 <= lambda < 1 keeps it bounded).
        fast_lr: eta, the fast memory's learning rate.
        inner_steps: S >= 1.
        recurrent_scale: W starts as this times the identity (0.05 in common
            reproductions; an IRNN uses 1).
        form: "attention" (the default) or "matrix" (the literal A_t, for checks).
        norm: where the layer normalisation sits: "sum" (the paper) or "slow" (Wayman's).
    """

    def __init__(
        self,
        input_size: int,
        output_size: int,
        hidden_size: int = 20,
        *,
        readout: int = 100,
        decay: float = 0.95,
        fast_lr: float = 0.5,
        inner_steps: int = 1,
        recurrent_scale: float = 0.05,
        form: Form = "attention",
        norm: Norm = "sum",
    ) -> None:
        super().__init__(input_size, output_size, hidden_size, readout)
        check_sizes(inner_steps=inner_steps)
        check_float("decay", decay, 0, 1)
        check_float("fast_lr", fast_lr)
        check_float("recurrent_scale", recurrent_scale)
        check_choice("form", form, ("attention", "matrix"))
        check_choice("norm", norm, ("sum", "slow"))
        self.decay, self.fast_lr = decay, fast_lr
        self.inner_steps, self.form, self.norm_over = inner_steps, form, norm
        self.C = InputEmbedding(input_size, hidden_size)
        self.W = nn.Linear(hidden_size, hidden_size)
        self.norm = nn.LayerNorm(hidden_size)  # over the hidden units of each example
        scaled_identity(self.W, recurrent_scale)
        self.readout = make_readout(hidden_size, readout, output_size)

    def initial_state(self, batch_size: int) -> FastWeightsState:
        """h_0 = 0 (B, R) and an empty fast memory: no past states, or A = 0 (B, R, R)."""
        h = self.W.weight.new_zeros(batch_size, self.hidden_size)
        if self.form == "matrix":
            return FastWeightsState(h, None, h.new_zeros(batch_size, *h.shape[1:] * 2))
        return FastWeightsState(h, h.new_zeros(batch_size, 0, self.hidden_size), None)

    def _checked(self, state: object, batch: int) -> FastWeightsState:
        check_type(state, FastWeightsState, "a FastWeightsRNN's FastWeightsState")
        assert isinstance(state, FastWeightsState)
        like, r = self.W.weight, self.hidden_size
        check_part("state.h", state.h, (batch, r), "(B, R)", like)
        if self.form == "matrix":
            check_part("state.matrix", state.matrix, (batch, r, r), "(B, R, R)", like)
        else:
            check_part("state.past", state.past, (batch, None, r), "(B, t, R)", like)
        return state

    def run(
        self, inputs: Tensor, state: FastWeightsState | None
    ) -> tuple[Tensor, FastWeightsState]:
        """The states h_t (B, T, R) from ``state``, and the state after the last step."""
        inputs = self.C.sequences(inputs)
        batch, steps = inputs.shape[:2]
        past: list[Tensor] = []
        if state is None:
            h = inputs.new_zeros(batch, self.hidden_size, dtype=self.W.weight.dtype)
            A = (
                h.new_zeros(batch, self.hidden_size, self.hidden_size)
                if self.form == "matrix"
                else None
            )
        else:
            state = self._checked(state, batch)
            h, A = state.h, state.matrix
            if state.past is not None:
                past = list(state.past.unbind(1))
        start = len(past)
        # eta lambda^(t-1-tau) for tau < t is the last t entries
        total = start + steps
        powers = self.fast_lr * self.decay ** torch.arange(
            total - 1, -1, -1, dtype=h.dtype, device=h.device
        )
        # Unbound once: indexing step t in the loop would give each step's backward a
        # zero tensor of the inputs' size.
        for t, x_t in enumerate(inputs.unbind(1), start):
            slow = self.W(h) + x_t
            h = torch.relu(slow)
            for _ in range(self.inner_steps):
                if A is None and not past:  # A_{-1} = 0
                    fast = torch.zeros_like(h)
                elif A is None:
                    fast = _FastTerm.apply(powers[total - t :], h, *past)
                else:
                    fast = torch.bmm(A, h[:, :, None])[:, :, 0]
                if self.norm_over == "sum":
                    h = torch.relu(self.norm(slow + fast))
                else:
                    h = torch.relu(self.norm(slow) + fast)
            past.append(h)
            if A is not None:
                A = self.decay * A + self.fast_lr * h[:, :, None] * h[:, None, :]
        features = torch.stack(past[start:], dim=1)
        if A is not None:
            return features, FastWeightsState(h, None, A)
        return features, FastWeightsState(h, torch.stack(past, dim=1), None)
