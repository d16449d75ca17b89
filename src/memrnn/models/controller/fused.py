"""The whole-sequence training path of ``MemoryRNN``: one autograd node per sequence.

Step by step, autograd records some forty small operations per time step of a
memory-augmented controller and saves their inputs, including per-step products of the
O(n m) value rows; on a CPU or a GPU at the paper's sizes the training step is then bound
by that bookkeeping, not by arithmetic. ``MemoryRNNSequence`` runs the same recurrence
(``memrnn.models.controller``) with autograd off and writes the backward by hand:

- the input half of the cell's first matrix product, and every weight gradient, are one
  matrix product over all T steps, outside the loop;
- each pushed value is written once into a (B, n, m) buffer; reads are batched products
  with it, and its gradient accumulates in one buffer of the same size;
- the memory keeps its strengths s_{t-1} (O(n) numbers per step) and recomputes its step
  in the backward (``memrnn.structures.layout``, Grefenstette et al. 2015, Appendix A).

``MemoryRNN.forward`` and ``trace`` use it (``sequence.run_fused``); ``MemoryRNN.step``
remains the literal per-step reference the tests compare it with. ``MemoryRNN.stream``
runs it from a carried state (a memory carried in fills the rows of the steps before this
chunk, ``Layout.start``) and has it return the state after the last step, whose gradient
from a later chunk starts the backward recursion.

The same node runs K controllers of one shape at once (``memrnn.models.grouped``): with
every weight stacked (K, ...) and the batch rows member-major (member k owns rows
k B .. (k + 1) B - 1), its matrix products become batched ones (``addmm``, ``mm``,
``weight_grad``, ``bias_grad`` below), and the memory, which acts row by row, is unchanged.
With 2-D weights these helpers run the products of a single controller as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor
from torch.autograd.function import FunctionCtx, once_differentiable

from memrnn.structures.layout import Layout, backward_masks, step_backward, step_forward
from memrnn.structures.precision import full_precision_backward, full_precision_forward


def members(w: Tensor) -> int | None:
    """K for a weight stacked over K members (3-D), None for one model's weight (2-D)."""
    return w.shape[0] if w.ndim == 3 else None


def addmm(add: Tensor, x: Tensor, w: Tensor, out: Tensor | None = None) -> Tensor:
    """add + x w: x (R, I) and w (I, O), or K members' weights w (K, I, O) on R = K B
    member-major rows, ``add`` then (K, O) per member or (R, O) per row."""
    k = members(w)
    if k is None:
        return torch.addmm(add, x, w, out=out)
    at = out.view(k, -1, w.shape[2]) if out is not None else None
    batched = torch.baddbmm(add.view(k, -1, add.shape[-1]), x.view(k, -1, x.shape[-1]), w, out=at)
    return batched.flatten(0, 1)


def addmm_(acc: Tensor, x: Tensor, w: Tensor) -> None:
    """acc += x w in place, shapes as for ``addmm``."""
    k = members(w)
    if k is None:
        acc.addmm_(x, w)
    else:
        acc.view(k, -1, acc.shape[-1]).baddbmm_(x.view(k, -1, x.shape[-1]), w)


def mm(x: Tensor, w: Tensor) -> Tensor:
    """x w, shapes as for ``addmm``."""
    k = members(w)
    if k is None:
        return x @ w
    return torch.bmm(x.view(k, -1, x.shape[-1]), w).flatten(0, 1)


def weight_grad(d: Tensor, x: Tensor, k: int | None) -> Tensor:
    """sum over steps and rows of d^T x for d (T, R, O) and x (T, R, I): (O, I), or
    (K, O, I) per member over its own B rows."""
    if k is None:
        return d.flatten(0, 1).t() @ x.flatten(0, 1)
    by_member = [y.unflatten(1, (k, -1)).transpose(0, 1).flatten(1, 2) for y in (d, x)]
    return torch.bmm(by_member[0].transpose(1, 2), by_member[1])


def bias_grad(d: Tensor, k: int | None) -> Tensor:
    """sum over steps and rows of d (T, R, O): (O,), or (K, O) per member."""
    return d.sum((0, 1)) if k is None else d.unflatten(1, (k, -1)).sum((0, 2))


# The memory's reads and their gradient to the values are a tiny product per row (1 to 2
# by up to 2T by m). On K B rows a broadcast product and sum is several times faster than
# ``torch.bmm``, which takes its unvectorised path for them. One model keeps ``bmm``: the
# two round differently, and one model's runs must stay as they were.


def read(w: Tensor, values: Tensor, k: int | None, out: Tensor) -> None:
    """The reads with the read weights w (E, R, n) of the values (R, n, m) into out
    (R, E m), one end after the other."""
    if k is None:
        out.copy_(torch.bmm(w.transpose(0, 1), values).flatten(1))
        return
    m = values.shape[2]
    for end, w_end in enumerate(w):
        torch.sum(values * w_end.unsqueeze(-1), dim=1, out=out[:, end * m : (end + 1) * m])


def add_read_grad(d_values: Tensor, w: Tensor, d_r: Tensor, k: int | None) -> None:
    """d_values (R, n, m) += the gradient of ``read`` to its values, for d_r (R, E, m)."""
    if k is None:
        d_values.baddbmm_(w.permute(1, 2, 0), d_r)
        return
    for end, w_end in enumerate(w):
        d_values.addcmul_(w_end.unsqueeze(-1), d_r[:, end].unsqueeze(1))


@dataclass(frozen=True)
class Shape:
    """The sizes the recurrence needs besides its tensors."""

    layout: Layout
    hidden: int
    width: int  # m
    lstm: bool
    final: bool = False  # also return the state after the last step

    @property
    def ends(self) -> int:
        return len(self.layout.ends)


class MemoryRNNSequence(torch.autograd.Function):
    """o'_t and the gates for t = 1..T of a controller with its memory.

    Inputs:
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
    (K, G, E m + H), b_p (K, H'), ...) and B = K B' rows, member-major; the weights'
    gradients are then (K, ...), each member's summed over its own rows.

    Returns:
        o' (B, T, H'), push (B, T, E), pop (B, T, E) and the strengths s_t (T, B, n) in
        the layout's row order (not differentiable); with ``shape.final``, then the state
        after the last step: h_T, c_T (None for an Elman RNN), r_T, s_T and the values
        (B, n, m), all differentiable.
    """

    @staticmethod
    @full_precision_forward
    def forward(
        ctx: FunctionCtx,
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
    ) -> tuple[Tensor | None, ...]:
        layout, hid, m, e = shape.layout, shape.hidden, shape.width, shape.ends
        batch, steps, _ = xw.shape
        em = e * m
        xw_t = xw.transpose(0, 1)
        new = xw.new_empty
        rh = new(steps + 1, batch, em + hid)  # [r_{t-1} ; h_{t-1}] at index t
        hs = rh[1:, :, em:]
        # The cell's gates after their sigmoid or tanh (an Elman cell's are h_t itself).
        acts = new(steps, batch, w_rec.shape[-2]) if shape.lstm else hs
        cells = new(steps + 1, batch, hid) if shape.lstm else None
        tanh_c = new(steps, batch, hid) if shape.lstm else None
        p_all = new(steps, batch, w_q.shape[-1]) if w_p is not None else hs
        q_all = new(steps, batch, w_q.shape[-2])  # [v ; d ; u] after their nonlinearities
        strengths = xw.new_zeros(steps + 1, batch, layout.rows)  # s_{t-1} at index t
        weights = new(steps, e, batch, layout.rows)
        values = xw.new_zeros(batch, layout.rows, m)

        one = xw.new_ones(())
        group = members(w_rec)
        rh[0, :, :em] = 0 if r0 is None else r0
        rh[0, :, em:] = h0
        if s0 is not None and values0 is not None:
            lo, hi = layout.carried
            strengths[0, :, lo:hi] = s0
            values[:, lo:hi] = values0
        if cells is not None:
            assert c0 is not None and tanh_c is not None
            cells[0] = c0
        for t in range(steps):
            a = acts[t]
            z = addmm(xw_t[t], rh[t], w_rec.mT)
            if cells is not None and tanh_c is not None:
                torch.sigmoid(z, out=a)
                torch.tanh(z[:, 2 * hid : 3 * hid], out=a[:, 2 * hid : 3 * hid])
                i, f, g, o = a.chunk(4, dim=1)
                c = torch.addcmul(f * cells[t], i, g, out=cells[t + 1])
                h = torch.mul(o, torch.tanh(c, out=tanh_c[t]), out=hs[t])
            else:
                h = torch.tanh(z, out=hs[t])
            p = h
            if w_p is not None:
                p = torch.tanh(addmm(b_p, h, w_p.mT), out=p_all[t])  # type: ignore[arg-type]
            q = addmm(b_q, p, w_q.mT, out=q_all[t])
            q[:, :em].tanh_()
            if noise is not None:
                q[:, em:] += noise[:, t]
            gates = q[:, em:].sigmoid_()
            step_forward(layout, strengths[t], t, gates[:, :e], gates[:, e:],
                         strengths[t + 1], weights[t], one)  # fmt: skip
            for k, row in enumerate(layout.push_rows(t)):
                values[:, row] = q[:, k * m : (k + 1) * m]
            lo, hi = layout.window(t)  # the rows pushed so far; the rest read as zero
            read(weights[t, :, :, lo:hi], values[:, lo:hi], group, out=rh[t + 1, :, :em])

        ctx.shape = shape  # type: ignore[attr-defined]
        saved = (w_rec, w_p, w_q, acts, cells, tanh_c, rh, p_all, q_all, strengths, weights,
                 values)  # fmt: skip
        ctx.save_for_backward(*saved)  # type: ignore[arg-type]  # None where a layer is absent
        q_t = q_all.transpose(0, 1)
        traces = strengths[1:]
        ctx.mark_non_differentiable(traces)
        out = (p_all.transpose(0, 1), q_t[..., em : em + e], q_t[..., em + e :], traces)
        if not shape.final:
            return out
        c_t = cells[-1].clone() if cells is not None else None
        final = (rh[-1, :, em:].clone(), c_t, rh[-1, :, :em].clone(), strengths[-1].clone())
        return (*out, *final, values.clone())

    @staticmethod
    @full_precision_backward
    @once_differentiable
    def backward(
        ctx: Any, grad_p: Tensor | None, grad_push: Tensor | None, grad_pop: Tensor | None,
        _grad_traces: Tensor | None, *grad_final: Tensor | None,
    ) -> tuple[Tensor | None, ...]:  # fmt: skip
        shape: Shape = ctx.shape
        (w_rec, w_p, w_q, acts, cells, tanh_c, rh, p_all, q_all, strengths, weights,
         values) = ctx.saved_tensors  # fmt: skip
        layout, hid, m, e = shape.layout, shape.hidden, shape.width, shape.ends
        em = e * m
        steps, batch, _ = acts.shape
        new = acts.new_zeros
        group = members(w_rec)

        # Every factor that does not depend on the backward recursion, for all steps.
        masks = backward_masks(layout, strengths[:-1], strengths[1:], q_all[..., em + e :])
        q_slope = q_all * (1 - q_all)  # sigmoid' of the gates ...
        q_slope[..., :em] = 1 - q_all[..., :em] ** 2  # ... and tanh' of the values
        if cells is not None:
            slope = acts * (1 - acts)
            slope[..., 2 * hid : 3 * hid] = 1 - acts[..., 2 * hid : 3 * hid] ** 2
            i, f, g, o = acts.chunk(4, dim=2)
            gci = torch.stack([g, cells[:-1], i], dim=2)  # dc -> (di, df, dg)
            o_tanh = o * (1 - tanh_c * tanh_c)
        else:
            slope = 1 - acts * acts
        p_slope = 1 - p_all * p_all if w_p is not None else None
        grad_p_t = grad_p.transpose(0, 1) if grad_p is not None else None
        grad_gates = None
        if grad_push is not None or grad_pop is not None:
            grad_gates = torch.cat(
                [(x if x is not None else new(batch, steps, e)).transpose(0, 1)
                 for x in (grad_push, grad_pop)], dim=2,
            )  # fmt: skip

        # The gradients that reach the state after the last step, zero unless a later
        # chunk of the sequence used it.
        g_h, g_c, g_r, g_s, g_values = grad_final or (None,) * 5

        def start(g: Tensor | None, *size: int) -> Tensor:
            return new(size) if g is None else g.reshape(size).clone()

        d_h = start(g_h, batch, hid)
        d_c = start(g_c, batch, hid) if cells is not None else None
        d_r = start(g_r, batch, e, m)
        d_s = start(g_s, batch, layout.rows)
        d_values = start(g_values, *values.shape)
        d_z = acts.new_empty(acts.shape)
        d_q = q_all.new_empty(q_all.shape)
        d_pre = p_all.new_empty(p_all.shape) if p_slope is not None else None
        values_t = values.transpose(1, 2)
        hs = rh[1:, :, em:]

        # The backward's products run over all rows, not the forward's window: restricting
        # them changes the rounding of the gradients (not their value) and so the training
        # runs the reports quote.
        for t in reversed(range(steps)):
            d_w = torch.bmm(d_r, values_t)  # r_t feeds step t + 1; d_r is zero at t = T-1
            add_read_grad(d_values, weights[t], d_r, group)
            dq = d_q[t]
            d_s = step_backward(layout, masks, t, d_s, d_w.transpose(0, 1), dq[:, em : em + e],
                                dq[:, em + e :])  # fmt: skip
            for k, row in enumerate(layout.push_rows(t)):
                dq[:, k * m : (k + 1) * m] = d_values[:, row]
            if grad_gates is not None:
                dq[:, em:] += grad_gates[t]
            dq *= q_slope[t]
            d_p = mm(dq, w_q) if grad_p_t is None else addmm(grad_p_t[t], dq, w_q)
            if d_pre is not None and p_slope is not None:
                addmm_(d_h, torch.mul(d_p, p_slope[t], out=d_pre[t]), w_p)
            else:
                d_h += d_p
            dz = d_z[t]
            if d_c is not None:
                d_c.addcmul_(d_h, o_tanh[t])
                torch.mul(d_h, tanh_c[t], out=dz[:, 3 * hid :])
                torch.mul(d_c.unsqueeze(1), gci[t], out=dz[:, : 3 * hid].unflatten(1, (3, hid)))
                dz *= slope[t]
                d_c = d_c * f[t]
            else:
                torch.mul(d_h, slope[t], out=dz)
            d_rh = mm(dz, w_rec)
            d_r = d_rh[:, :em].unflatten(1, (e, m))
            d_h = d_rh[:, em:]

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
        carried = {"r0": d_r.flatten(1), "s0": d_s[:, lo:hi], "values0": d_values[:, lo:hi]}
        wanted = ctx.needs_input_grad
        names = ("xw", "h0", "c0", "w_rec", "w_p", "b_p", "w_q", "b_q", "noise", "shape",
                 *carried)  # fmt: skip
        grads |= carried
        return tuple(
            grads.get(k) if wanted[i] else None for i, k in enumerate(names[: len(wanted)])
        )
