"""The whole-sequence training path of ``MemoryRNN``: one autograd node per sequence.

Step by step, autograd records some forty small operations per time step of a
memory-augmented controller and saves their inputs, including per-step products of the
O(n m) value rows; on a CPU or a GPU at the paper's sizes the training step is then bound
by that bookkeeping, not by arithmetic. ``forward`` here runs the same recurrence
(``memrnn.models.controller``) with autograd off and ``backward`` is written by hand
(``memrnn.models.controller.ops`` makes the two one operator with its gradient):

- the input half of the cell's first matrix product, and every weight gradient, are one
  matrix product over all T steps, outside the loop;
- each pushed value is written once into a (B, n, m) buffer; reads are batched products
  with it, and its gradient accumulates in one buffer of the same size;
- the memory keeps its strengths s_{t-1} (O(n) numbers per step) and recomputes its step
  in the backward (``memrnn.structures.layout``, Grefenstette et al. 2015, Appendix A).
- the loop over t, forward and backward, runs compiled on a CPU where it can
  (``memrnn.models.controller.loops``), the same numbers bit for bit as in Python.

``MemoryRNN.forward`` and ``trace`` use it (``sequence.run_fused``); ``MemoryRNN.step``
remains the literal per-step reference the tests compare it with. ``MemoryRNN.stream``
runs it from a carried state (a memory carried in fills the rows of the steps before this
chunk, ``Layout.start``) and has it return the state after the last step, whose gradient
from a later chunk starts the backward recursion.

The same node runs K controllers of one shape at once (``memrnn.models.grouped``): with
every weight stacked (K, ...) and the batch rows member-major (member k owns rows
k B .. (k + 1) B - 1), its matrix products become batched ones
(``memrnn.models.controller.products``), and the memory, which acts row by row, is
unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from torch import Tensor

from memrnn.models.controller.loops import backward_loop, forward_loop
from memrnn.models.controller.products import bias_grad, members, weight_grad
from memrnn.structures.layout import Layout
from memrnn.structures.steps import in_backward_order, reversed_rows


@dataclass(frozen=True)
class Shape:
    """The sizes the recurrence needs besides its tensors."""

    layout: Layout
    hidden: int
    width: int  # m
    lstm: bool
    final: bool = False  # also return the state after the last step
    # A forward with no backward: each step's gates, cell states, tanh(c) and read
    # weights overwrite the last step's, O(B (H + n)) numbers where the backward needs
    # every step's, O(T B (H + n)).
    lean: bool = False

    @property
    def ends(self) -> int:
        return len(self.layout.ends)


class Run(NamedTuple):
    """What ``forward`` computes: the tensors the backward needs and the state after the
    last step. A tensor that is absent (an Elman cell has no c, a run without an o'
    layer no o') or that aliases another (an Elman cell's gates are its h_t) is empty."""

    rh: Tensor  # (T + 1, B, E m + H), [r_{t-1} ; h_{t-1}] at index t
    q_all: Tensor  # (T, B, E m + 2E), [v ; d ; u] after their nonlinearities
    strengths: Tensor  # (T + 1, B, n), s_{t-1} at index t
    weights: Tensor  # (T, E, B, n), the read weights
    values: Tensor  # (B, n, m), the value rows
    acts: Tensor  # (T, B, 4H), an LSTM's gates after their sigmoid or tanh
    cells: Tensor  # (T + 1, B, H), an LSTM's c_{t-1} at index t
    tanh_c: Tensor  # (T, B, H)
    p_all: Tensor  # (T, B, H'), o'_t of an o' layer
    h_last: Tensor  # the state after the last step, with ``Shape.final``: h_T (B, H),
    c_last: Tensor  # c_T (B, H),
    r_last: Tensor  # r_T (B, E m),
    s_last: Tensor  # s_T (B, n)
    values_last: Tensor  # and the values (B, n, m), each a tensor of its own


def present(x: Tensor) -> Tensor | None:
    """``x``, or None for the empty tensor that stands for an absent one in a ``Run``."""
    return x if x.numel() else None


def per_step(make: Callable[..., Tensor], steps: int, *size: int, lean: bool) -> Tensor:
    """A buffer (steps, *size) from ``make`` (``new_empty`` or ``new_zeros``); lean, one
    entry (1, *size) seen at every step, which each step writes anew."""
    if not lean:
        return make(steps, *size)
    return make(1, *size).expand(steps, *size)


def forward(
    xw: Tensor,
    h0: Tensor,
    c0: Tensor | None,
    w_rec: Tensor,
    w_p: Tensor | None,
    b_p: Tensor | None,
    w_q: Tensor,
    b_q: Tensor,
    noise: Tensor | None,
    shape: Shape,
    r0: Tensor | None = None,
    s0: Tensor | None = None,
    values0: Tensor | None = None,
) -> Run:
    """The recurrence of a controller with its memory over t = 1..T.

    Args:
        xw: (B, T, G) the cell's pre-activation from the input i_t, biases included
            (G = 4H for an LSTM, H for an Elman RNN).
        h0, c0: (B, H) the initial state (c0 None for an Elman RNN).
        w_rec: (G, E m + H) the cell's weights on [r_{t-1} ; h_{t-1}].
        w_p, b_p: the o' layer (o'_t = tanh(w_p h_t + b_p)), or None for o'_t = h_t.
        w_q, b_q: (E m + 2E, H') the memory projections, rows [values ; pushes ; pops],
            each grouped by end (top first).
        noise: (B, T, 2E) added to the push and pop pre-activations, or None.
        shape: a ``Shape``.
        r0: (B, E m) the reads before step 0, or None for zeros.
        s0, values0: (B, n0) and (B, n0, m) the strengths and values of a memory carried
            in, in the layout's row order (its ``carried`` rows), or None for an empty one.

    For K members at once, every weight and bias has a leading dimension K (w_rec
    (K, G, E m + H), b_p (K, H'), ...) and B = K B' rows, member-major.
    """
    layout, hid, m, e = shape.layout, shape.hidden, shape.width, shape.ends
    batch, steps, _ = xw.shape
    em = e * m
    xw_t = xw.transpose(0, 1)
    new = xw.new_empty
    rh = new(steps + 1, batch, em + hid)  # [r_{t-1} ; h_{t-1}] at index t
    hs = rh[1:, :, em:]
    # The cell's gates after their sigmoid or tanh (an Elman cell's are h_t itself).
    lean = shape.lean
    acts = per_step(new, steps, batch, w_rec.shape[-2], lean=lean) if shape.lstm else hs
    # c_{t-1} is read before c_t is written, so lean they can share one row
    cells = per_step(new, steps + 1, batch, hid, lean=lean) if shape.lstm else None
    tanh_c = per_step(new, steps, batch, hid, lean=lean) if shape.lstm else None
    p_all = new(steps, batch, w_q.shape[-1]) if w_p is not None else hs
    q_all = new(steps, batch, w_q.shape[-2])  # [v ; d ; u] after their nonlinearities
    strengths = xw.new_zeros(steps + 1, batch, layout.rows)  # s_{t-1} at index t
    # the compiled loop writes each step's window, and a step reads no other row
    weights = per_step(xw.new_zeros, steps, e, batch, layout.rows, lean=lean)
    values = xw.new_zeros(batch, layout.rows, m)

    rh[0, :, :em] = 0 if r0 is None else r0
    rh[0, :, em:] = h0
    if s0 is not None and values0 is not None:
        lo, hi = layout.carried
        strengths[0, :, lo:hi] = s0
        values[:, lo:hi] = values0
    if cells is not None:
        assert c0 is not None
        cells[0] = c0

    forward_loop(xw_t, rh, acts, cells, tanh_c, p_all if w_p is not None else None, q_all,
                 strengths, weights, values, w_rec, w_p, b_p, w_q, b_q, noise, shape)  # fmt: skip

    def none() -> Tensor:  # an empty tensor for one that is absent, each its own
        return xw.new_empty(0)

    if not shape.final:
        last = tuple(none() for _ in range(5))
    else:
        c_last = cells[-1].clone() if cells is not None else none()
        last = (rh[-1, :, em:].clone(), c_last, rh[-1, :, :em].clone(),
                strengths[-1].clone(), values.clone())  # fmt: skip
    return Run(
        rh, q_all, strengths, weights, values,
        acts if shape.lstm else none(),
        cells if cells is not None else none(),
        tanh_c if tanh_c is not None else none(),
        p_all if w_p is not None else none(),
        *last,
    )  # fmt: skip


def backward(
    run: Run, w_rec: Tensor, w_p: Tensor | None, w_q: Tensor, grad_p: Tensor | None,
    grad_gates: Tensor | None, grad_last: tuple[Tensor | None, ...], shape: Shape,
) -> dict[str, Tensor | None]:  # fmt: skip
    """The gradients of ``forward``'s inputs, by Appendix A (Grefenstette et al. 2015)
    for the memory and the chain rule for the cell, from:

    Args:
        run: what ``forward`` returned.
        grad_p: dL/do'_t (T, B, H'), or None.
        grad_gates: dL/d(push, pop) (T, B, 2E), pushes then pops, or None.
        grad_last: dL/d of the state after the last step (h_T, c_T, r_T, s_T, values),
            each or None (all None unless ``shape.final``).

    Returns:
        A gradient for each tensor input of ``forward`` by its name (None for an absent
        one: c0 of an Elman cell, w_p and b_p without the o' layer).
    """
    layout, hid, m, e = shape.layout, shape.hidden, shape.width, shape.ends
    em = e * m
    rh, q_all, strengths, weights, values = run[:5]
    hs = rh[1:, :, em:]
    acts = run.acts if shape.lstm else hs
    cells, tanh_c = present(run.cells), present(run.tanh_c)
    p_all = run.p_all if w_p is not None else hs
    batch = acts.shape[1]
    new = acts.new_zeros
    group = members(w_rec)

    p_slope = 1 - p_all * p_all if w_p is not None else None

    # The gradients that reach the state after the last step, zero unless a later
    # chunk of the sequence used it.
    g_h, g_c, g_r, g_s, g_values = grad_last

    def start(g: Tensor | None, *size: int) -> Tensor:
        return new(size) if g is None else g.reshape(size).clone()

    # The memory's row-indexed tensors in the order its backward keeps them
    # (``memrnn.structures.steps``; reversed for a stack or a queue).
    n = layout.rows
    rev = reversed_rows(layout)
    d_h = start(g_h, batch, hid)
    d_c = start(g_c, batch, hid) if cells is not None else None
    d_r = start(g_r, batch, e, m)
    d_s = in_backward_order(layout, start(g_s, batch, n))
    d_values = start(g_values, *values.shape)
    d_values = d_values.flip(1) if rev else d_values
    d_z = acts.new_empty(acts.shape)
    d_q = q_all.new_empty(q_all.shape)
    d_pre = p_all.new_empty(p_all.shape) if p_slope is not None else None
    d_s, d_r, d_h = backward_loop(
        d_s, d_r, d_h, d_c, d_values, values, weights, strengths, d_q, q_all,
        grad_p, grad_gates, w_q, w_p, p_slope, d_pre, d_z, acts, cells, tanh_c, w_rec, shape,
    )  # fmt: skip

    d_s = in_backward_order(layout, d_s)
    d_values = d_values.flip(1) if rev else d_values
    grads: dict[str, Tensor | None] = {
        "xw": d_z.transpose(0, 1),
        "h0": d_h,
        "c0": d_c,
        "w_rec": weight_grad(d_z, rh[:-1], group),
        "w_p": weight_grad(d_pre, hs, group) if d_pre is not None else None,
        "b_p": bias_grad(d_pre, group) if d_pre is not None else None,
        "w_q": weight_grad(d_q, p_all, group),
        "b_q": bias_grad(d_q, group),
    }
    lo, hi = layout.carried
    grads["r0"], grads["s0"], grads["values0"] = d_r.flatten(1), d_s[:, lo:hi], d_values[:, lo:hi]
    return grads
