"""The matrix products of ``memrnn.models.controller.fused``,
for one controller or for K controllers of one shape at once.

With every weight stacked (K, ...) and the batch rows member-major (member k owns rows
k B .. (k + 1) B - 1), a product of one controller becomes a batched one; with 2-D
weights these run the products of a single controller as they were.
"""

from __future__ import annotations

import torch
from torch import Tensor


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
