"""Random inputs of ``fused.forward`` for every memory, cell and option of one controller
or K members, and the gradients a backward starts from: shared by the controller tests."""

from __future__ import annotations

import itertools

import torch
from torch import Tensor

from memrnn.models.controller.fused import Shape
from memrnn.structures.layout import Layout

CASES = list(itertools.product(("stack", "queue", "deque"), ("lstm", "rnn"), (True, False)))


def _case(memory: str, cell: str, o_prime: bool, members: int | None, start: int,
          dtype: torch.dtype, seed: int, t_len: int = 7, gate_scale: float = 1.0,
          m: int = 4, b: int = 3) -> tuple[list[Tensor | None], Shape, list]:  # fmt: skip
    """Random inputs of ``fused.forward`` and the gradients a backward starts from; the
    gates' weights times ``gate_scale`` (30 in float32: pushes and pops of exactly 1),
    memory width ``m``, batch ``b`` (per member)."""
    gen = torch.Generator().manual_seed(seed)
    hid = 5
    e = 2 if memory == "deque" else 1
    rows = b * (members or 1)
    lead = (members,) if members else ()

    def rand(*size: int, scale: float = 2.0) -> Tensor:
        return scale * torch.randn(*size, dtype=dtype, generator=gen)

    g = 4 * hid if cell == "lstm" else hid
    q = e * m + 2 * e
    layout = Layout(memory, t_len, start)  # type: ignore[arg-type]
    n0 = layout.carried[1] - layout.carried[0]
    carried = start > 0
    inputs = [
        rand(rows, t_len, g), rand(rows, hid), rand(rows, hid) if cell == "lstm" else None,
        rand(*lead, g, e * m + hid), rand(*lead, hid, hid) if o_prime else None,
        rand(*lead, hid) if o_prime else None, rand(*lead, q, hid), rand(*lead, q),
        rand(rows, t_len, 2 * e, scale=0.5),
        rand(rows, e * m) if carried else None,
        torch.rand(rows, n0, dtype=dtype, generator=gen) if carried else None,
        rand(rows, n0, m) if carried else None,
    ]  # fmt: skip
    w_q, b_q = inputs[6], inputs[7]
    assert w_q is not None and b_q is not None
    w_q[..., e * m :, :] *= gate_scale  # the gates' rows
    b_q[..., e * m :] *= gate_scale
    shape = Shape(layout, hid, m, lstm=cell == "lstm", final=carried)
    # dL/d of o'_t, of the gates, and of the state after the last step (h, c, r, s, values)
    last = ((rows, hid), (rows, hid) if cell == "lstm" else None, (rows, e * m),
            (rows, layout.rows), (rows, layout.rows, m))  # fmt: skip
    grads = [
        rand(t_len, rows, hid),
        rand(t_len, rows, 2 * e),
        tuple(rand(*x) if carried and x is not None else None for x in last),
    ]
    return inputs, shape, grads
