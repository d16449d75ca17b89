"""The time loops of ``memrnn.models.controller.fused``: step t of the recurrence, forward
from the first step and backward from the last, filling buffers ``fused`` made.

Each loop runs compiled (``loops.cpp``, ``memrnn.models.controller.native``) where it
can, and in Python otherwise; the two do the same arithmetic in the same order, and so
give the same numbers bit for bit. For K controllers at once (a group's batching rule)
the products take each member's weights (``memrnn.models.controller.products``). The
Python loops here are the reference the tests compare the compiled ones with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import Tensor

from memrnn.models.controller.native import loops
from memrnn.models.controller.products import add_read_grad, addmm, addmm_, members, mm, read
from memrnn.structures.layout import backward_masks
from memrnn.structures.steps import (
    BackwardSteps,
    ForwardSteps,
    in_backward_order,
    reordered,
    reversed_rows,
    sum_ends,
)

if TYPE_CHECKING:
    from memrnn.models.controller.fused import Shape


def forward_loop(
    xw_t: Tensor, rh: Tensor, acts: Tensor, cells: Tensor | None, tanh_c: Tensor | None,
    p_all: Tensor | None, q_all: Tensor, strengths: Tensor, weights: Tensor, values: Tensor,
    w_rec: Tensor, w_p: Tensor | None, b_p: Tensor | None, w_q: Tensor, b_q: Tensor,
    noise: Tensor | None, shape: Shape,
) -> None:  # fmt: skip
    """Steps t = 0 .. T-1 of ``fused.forward``, into its buffers (named as there; xw_t is
    xw (T, B, G) step-major, p_all None without an o' layer)."""
    layout, hid, m = shape.layout, shape.hidden, shape.width
    steps = xw_t.shape[0]
    native = loops(xw_t)
    if native is not None:
        native.forward_loop(
            xw_t, rh, acts, cells, tanh_c, p_all, q_all, strengths, weights, values, w_rec.mT,
            w_p.mT if w_p is not None else None, b_p, w_q.mT, b_q, noise, hid, m,
            members(w_rec) or 0, [end == "high" for end in layout.ends], list(layout.push_lines()),
            [layout.window(t) for t in range(steps)],
        )  # fmt: skip
        return
    e = shape.ends
    em = e * m
    batch = xw_t.shape[1]
    new = xw_t.new_empty
    hs = rh[1:, :, em:]
    group = members(w_rec)
    # Every step's views, taken once: indexing them anew at each step would cost as
    # much as the step's small operations (``memrnn.structures.steps``).
    memory = ForwardSteps(layout, strengths, weights)
    xs, rh_in, hs_out, qs = xw_t.unbind(0), rh.unbind(0), hs.unbind(0), q_all.unbind(0)
    reads_out = rh[1:, :, :em].unbind(0)
    weights_t = weights.unbind(0)
    q_values, q_gates = q_all[..., :em].unbind(0), q_all[..., em:].unbind(0)
    pushes = [q_all[..., em + k].unbind(0) for k in range(e)]
    pops = [q_all[..., em + e + k : em + e + k + 1].unbind(0) for k in range(e)]
    noises = noise.unbind(1) if noise is not None else None
    value_rows = values.unbind(1)
    pushed = [  # per end, the value written at step t and the row it goes to
        list(zip(q_all[..., k * m : (k + 1) * m].unbind(0),
                 value_rows[first::step][:steps], strict=True))
        for k, (first, step) in enumerate(layout.push_lines())
    ]  # fmt: skip
    windows = [layout.window(t) for t in range(steps)]  # the rows a read sees
    w_rec_t, w_q_t = w_rec.mT, w_q.mT
    w_p_t = w_p.mT if w_p is not None else None
    if cells is not None and tanh_c is not None:
        c_in, c_out, tanh_out = cells[:-1].unbind(0), cells[1:].unbind(0), tanh_c.unbind(0)
        a_all, g_all = acts.unbind(0), acts[..., 2 * hid : 3 * hid].unbind(0)
        i_all, f_all, _, o_all = (x.unbind(0) for x in acts.chunk(4, dim=2))
        z = new(batch, acts.shape[-1])
        z_g = z[:, 2 * hid : 3 * hid]
        fc = new(batch, hid)
    for t in range(steps):
        if cells is not None and tanh_c is not None:
            addmm(xs[t], rh_in[t], w_rec_t, out=z)
            torch.sigmoid(z, out=a_all[t])
            torch.tanh(z_g, out=g_all[t])
            torch.mul(f_all[t], c_in[t], out=fc)
            c = torch.addcmul(fc, i_all[t], g_all[t], out=c_out[t])
            h = torch.mul(o_all[t], torch.tanh(c, out=tanh_out[t]), out=hs_out[t])
        else:
            h = torch.tanh(addmm(xs[t], rh_in[t], w_rec_t), out=hs_out[t])
        p = h
        if w_p_t is not None:
            assert b_p is not None and p_all is not None
            p = torch.tanh(addmm(b_p, h, w_p_t), out=p_all[t])
        addmm(b_q, p, w_q_t, out=qs[t])
        q_values[t].tanh_()
        if noises is not None:
            q_gates[t].add_(noises[t])
        q_gates[t].sigmoid_()
        memory(t, [x[t] for x in pushes], [x[t] for x in pops])
        for end in pushed:
            value, row = end[t]
            row.copy_(value)
        lo, hi = windows[t]  # the rows pushed so far; the rest read as zero
        w = weights_t[t].narrow(2, lo, hi - lo)
        read(w, values.narrow(1, lo, hi - lo), group, out=reads_out[t])


def backward_loop(
    d_s: Tensor, d_r: Tensor, d_h: Tensor, d_c: Tensor | None, d_values: Tensor,
    values: Tensor, weights: Tensor, strengths: Tensor, d_q: Tensor, q_all: Tensor,
    grad_p: Tensor | None, grad_gates: Tensor | None, w_q: Tensor, w_p: Tensor | None,
    p_slope: Tensor | None, d_pre: Tensor | None, d_z: Tensor, acts: Tensor,
    cells: Tensor | None, tanh_c: Tensor | None, w_rec: Tensor, shape: Shape,
) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """Steps t = T-1 .. 0 of ``fused.backward``, named as there: d_s and d_values in the
    row order ``BackwardSteps`` keeps, the others as the forward left them (cells and
    tanh_c None for an Elman cell). Fills d_q, d_z, d_pre and d_values; returns d_s, d_r
    and d_h after step 0."""
    layout, hid, m, e = shape.layout, shape.hidden, shape.width, shape.ends
    em, n, steps = e * m, layout.rows, d_q.shape[0]
    rev = reversed_rows(layout)
    values_t = values.transpose(1, 2)
    group = members(w_rec)
    native = loops(d_q)
    if native is not None:
        d_s, d_r, d_h = native.backward_loop(
            d_s, d_r, d_h, d_c, d_values, values_t, in_backward_order(layout, weights),
            strengths, d_q, q_all, grad_p, grad_gates, w_q, w_p, p_slope, d_pre, d_z, acts,
            cells, tanh_c, w_rec, hid, m, group or 0, rev, [end == "high" for end in layout.ends],
            [end == "high" for end in sum_ends(layout)], list(layout.push_lines()),
            [layout.window(t) for t in range(steps)],
        )  # fmt: skip
        return d_s, d_r, d_h
    # Every factor that does not depend on the backward recursion, for all steps: the
    # memory's 0/1 factors and the slopes of the nonlinearities.
    masks = reordered(layout, backward_masks(layout, strengths[:-1], strengths[1:],
                                             q_all[..., em + e :]))  # fmt: skip
    q_slope = q_all * (1 - q_all)  # sigmoid' of the gates ...
    q_slope[..., :em] = 1 - q_all[..., :em] ** 2  # ... and tanh' of the values
    if cells is not None:
        assert tanh_c is not None
        slope = acts * (1 - acts)
        slope[..., 2 * hid : 3 * hid] = 1 - acts[..., 2 * hid : 3 * hid] ** 2
        i, f, g, o = acts.chunk(4, dim=2)
        gci = torch.stack([g, cells[:-1], i], dim=2)  # dc -> (di, df, dg)
        lstm_parts = (o * (1 - tanh_c * tanh_c), tanh_c, gci, f)  # o_tanh, for dc
    else:
        lstm_parts = None
        slope = 1 - acts * acts
    weights_t = in_backward_order(layout, weights).unbind(0)

    # Every step's views, taken once, as in the forward.
    memory = BackwardSteps(layout, masks, d_s, d_q[..., em : em + e], d_q[..., em + e :])
    d_qs, slopes, q_slopes = d_q.unbind(0), slope.unbind(0), q_slope.unbind(0)
    d_q_gates = d_q[..., em:].unbind(0)
    d_value_rows = d_values.unbind(1)
    pushed = [  # per end, the gradient of the value pushed at step t and where it goes
        list(zip(d_q[..., k * m : (k + 1) * m].unbind(0),
                 [d_value_rows[n - 1 - r if rev else r] for r in range(first, last, step)],
                 strict=True))
        for k, (first, step) in enumerate(layout.push_lines())
        for last in [first + step * steps]
    ]  # fmt: skip
    grad_p_all = grad_p.unbind(0) if grad_p is not None else None
    grad_gates_all = grad_gates.unbind(0) if grad_gates is not None else None
    if d_c is not None:
        assert lstm_parts is not None
        o_tanhs, tanh_cs, gcis, fs = (x.unbind(0) for x in lstm_parts)
        d_z_o = d_z[..., 3 * hid :].unbind(0)
        d_z_ifg = d_z[..., : 3 * hid].unflatten(2, (3, hid)).unbind(0)
        d_c_each = d_c.unsqueeze(1)

    # The backward's products run over all rows, not the forward's window: restricting
    # them changes the rounding of the gradients (not their value) and so the training
    # runs the reports quote.
    for t in reversed(range(steps)):
        d_w = torch.bmm(d_r, values_t)  # r_t feeds step t + 1; d_r is zero at t = T-1
        add_read_grad(d_values, weights_t[t], d_r, group)
        # (a product with the rows reversed would round differently)
        d_s = memory(t, in_backward_order(layout, d_w).transpose(0, 1))
        for end in pushed:
            d_value, row = end[t]
            d_value.copy_(row)
        dq = d_qs[t]
        if grad_gates_all is not None:
            d_q_gates[t].add_(grad_gates_all[t])
        dq *= q_slopes[t]
        d_p = mm(dq, w_q) if grad_p_all is None else addmm(grad_p_all[t], dq, w_q)
        if d_pre is not None and p_slope is not None and w_p is not None:
            addmm_(d_h, torch.mul(d_p, p_slope[t], out=d_pre[t]), w_p)
        else:
            d_h += d_p
        dz = d_z[t]
        if d_c is not None:
            d_c.addcmul_(d_h, o_tanhs[t])
            torch.mul(d_h, tanh_cs[t], out=d_z_o[t])
            torch.mul(d_c_each, gcis[t], out=d_z_ifg[t])
            dz *= slopes[t]
            d_c.mul_(fs[t])
        else:
            torch.mul(d_h, slopes[t], out=dz)
        d_rh = mm(dz, w_rec)
        d_r = d_rh[:, :em].unflatten(1, (e, m))
        d_h = d_rh[:, em:]
    return d_s, d_r, d_h
