"""The whole-sequence recurrence of ``MemoryRNN`` as one operator with its gradient.

``memrnn.models.controller.fused`` computes the recurrence and its backward; here they
become two operators of the ``torch.library`` (``memrnn::memory_rnn_forward`` and
``memrnn::memory_rnn_backward``), the first with the second as its autograd formula, each
with a "fake" that gives the shapes of its outputs without computing them. For
``torch.compile`` a sequence is then one opaque node of the graph, whatever its length:
no graph break, and no loop of T steps unrolled into the graph (which would make one
graph per length, each compiled anew). Eagerly the same two functions run as an autograd
Function (``MemoryRNNSequence``): the same numbers bit for bit, without the operators'
dispatch through Python (about a millisecond of a training step at the sizes of
Grefenstette et al.'s quick profile). ``torch.library.custom_op`` came with torch 2.4;
under an older torch the Function runs under compile as well, with the graph break
compile then has.

Under autocast the tensors go in as float32 (``widened``, whose gradient casts back) and
the operators run with autocast off, as ``memrnn.structures.precision`` explains.
"""

from collections.abc import Callable
from typing import Any, cast

import torch
from torch import Tensor

from memrnn.models.controller.fused import Run, Shape, backward, forward, present
from memrnn.structures.layout import Layout
from memrnn.structures.precision import in_full_precision, widened

RunTensors = tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor,
                   Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]  # fmt: skip
Grads = tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor,
              Tensor]  # fmt: skip
# The inputs of ``memory_rnn_forward`` that have a gradient, in order, then the rest.
INPUTS = ("xw", "h0", "c0", "w_rec", "w_p", "b_p", "w_q", "b_q", "noise", "r0", "s0",
          "values0")  # fmt: skip
GRADS = ("xw", "h0", "c0", "w_rec", "w_p", "b_p", "w_q", "b_q", "r0", "s0", "values0")


def _shape(steps: int, kind: str, start: int, hidden: int, width: int, lstm: bool,
           final: bool, lean: bool) -> Shape:  # fmt: skip
    layout = Layout(kind, steps, start)  # type: ignore[arg-type]
    return Shape(layout, hidden, width, lstm, final, lean)


def _forward(
    xw: Tensor, h0: Tensor, c0: Tensor | None, w_rec: Tensor, w_p: Tensor | None,
    b_p: Tensor | None, w_q: Tensor, b_q: Tensor, noise: Tensor | None, r0: Tensor | None,
    s0: Tensor | None, values0: Tensor | None, kind: str, start: int, hidden: int,
    width: int, lstm: bool, final: bool, lean: bool,
) -> RunTensors:  # fmt: skip
    """``fused.forward`` (its ``Run``, absent tensors empty), the memory's layout given
    as its kind and the steps carried in (``Layout.start``); ``lean`` for a forward
    that has no backward (``Shape.lean``)."""
    shape = _shape(xw.shape[1], kind, start, hidden, width, lstm, final, lean)
    run = in_full_precision(forward, xw, h0, c0, w_rec, w_p, b_p, w_q, b_q, noise, shape, r0,
                            s0, values0)  # fmt: skip
    return cast(RunTensors, tuple(run))


def _forward_fake(
    xw: Tensor, h0: Tensor, c0: Tensor | None, w_rec: Tensor, w_p: Tensor | None,
    b_p: Tensor | None, w_q: Tensor, b_q: Tensor, noise: Tensor | None, r0: Tensor | None,
    s0: Tensor | None, values0: Tensor | None, kind: str, start: int, hidden: int,
    width: int, lstm: bool, final: bool, lean: bool,
) -> RunTensors:  # fmt: skip
    batch, steps, gates = xw.shape
    ends = 2 if kind == "deque" else 1
    n, em, new = ends * (start + steps), ends * width, xw.new_empty
    last = tuple(new(0) for _ in range(5))
    if final:
        last = (new(batch, hidden), new(batch, hidden) if lstm else new(0), new(batch, em),
                new(batch, n), new(batch, n, width))  # fmt: skip
    return cast(RunTensors, (
        new(steps + 1, batch, em + hidden), new(steps, batch, w_q.shape[-2]),
        new(steps + 1, batch, n), new(steps, ends, batch, n), new(batch, n, width),
        new(steps, batch, gates) if lstm else new(0),
        new(steps + 1, batch, hidden) if lstm else new(0),
        new(steps, batch, hidden) if lstm else new(0),
        new(steps, batch, w_q.shape[-1]) if w_p is not None else new(0),
        *last,
    ))  # fmt: skip


def _backward_op(
    rh: Tensor, q_all: Tensor, strengths: Tensor, weights: Tensor, values: Tensor,
    acts: Tensor, cells: Tensor, tanh_c: Tensor, p_all: Tensor, w_rec: Tensor,
    w_p: Tensor | None, w_q: Tensor, grad_p: Tensor | None, grad_gates: Tensor | None,
    g_h: Tensor | None, g_c: Tensor | None, g_r: Tensor | None, g_s: Tensor | None,
    g_values: Tensor | None, kind: str, start: int, hidden: int, width: int, lstm: bool,
    final: bool, lean: bool,
) -> Grads:  # fmt: skip
    """``fused.backward``: the gradients of ``memory_rnn_forward``'s inputs named in
    ``GRADS``, an empty tensor for each that is absent (the carried state's unless
    ``final``)."""
    if lean:  # unreachable: a forward is lean only where nothing needs its gradient
        raise RuntimeError("a lean forward keeps one step's buffers; it has no backward")
    shape = _shape(q_all.shape[0], kind, start, hidden, width, lstm, final, lean)
    run = Run(rh, q_all, strengths, weights, values, acts, cells, tanh_c, p_all,
              *(rh.new_empty(0) for _ in range(5)))  # fmt: skip
    grads = in_full_precision(backward, run, w_rec, w_p, w_q, grad_p, grad_gates,
                              (g_h, g_c, g_r, g_s, g_values), shape)  # fmt: skip
    # Fresh dense tensors where the fake says so (no output may be a view of another).
    grads["h0"] = grads["h0"].contiguous() if grads["h0"] is not None else None
    for name in ("r0", "s0", "values0"):
        x = grads[name]
        grads[name] = x.contiguous() if final and x is not None else None
    return cast(Grads, tuple(rh.new_empty(0) if grads[k] is None else grads[k] for k in GRADS))


def _backward_fake(
    rh: Tensor, q_all: Tensor, strengths: Tensor, weights: Tensor, values: Tensor,
    acts: Tensor, cells: Tensor, tanh_c: Tensor, p_all: Tensor, w_rec: Tensor,
    w_p: Tensor | None, w_q: Tensor, grad_p: Tensor | None, grad_gates: Tensor | None,
    g_h: Tensor | None, g_c: Tensor | None, g_r: Tensor | None, g_s: Tensor | None,
    g_values: Tensor | None, kind: str, start: int, hidden: int, width: int, lstm: bool,
    final: bool, lean: bool,
) -> Grads:  # fmt: skip
    steps, batch, _ = q_all.shape
    new = q_all.new_empty
    ends = 2 if kind == "deque" else 1
    n0 = ends * start
    carried = (new(batch, ends * width), new(batch, n0), new(batch, n0, width))
    return cast(Grads, (
        new(steps, batch, w_rec.shape[-2]).transpose(0, 1),  # as ``backward`` gives it
        new(batch, hidden), new(batch, hidden) if lstm else new(0),
        torch.empty_like(w_rec),
        torch.empty_like(w_p) if w_p is not None else new(0),
        new(w_p.shape[:-1]) if w_p is not None else new(0),
        torch.empty_like(w_q), new(w_q.shape[:-1]),
        *(carried if final else tuple(new(0) for _ in range(3))),
    ))  # fmt: skip


def _setup(ctx: Any, inputs: tuple[Any, ...], output: RunTensors) -> None:
    named = dict(zip(INPUTS, inputs, strict=False))
    ctx.config = inputs[len(INPUTS) :]
    ctx.has_w_p = named["w_p"] is not None
    ctx.save_for_backward(*output[:9], named["w_rec"], named["w_p"], named["w_q"])
    ctx.set_materialize_grads(False)  # most outputs are kept for the backward only


def _gradient(ctx: Any, *given: Tensor | None) -> tuple[Tensor | None, ...]:
    # AOT autograd passes an empty gradient for an empty output (an absent tensor)
    grads = [g if g is not None and g.numel() else None for g in given]
    *saved, w_rec, w_p, w_q = ctx.saved_tensors
    kind, width = ctx.config[0], ctx.config[3]
    em = (2 if kind == "deque" else 1) * width
    g_rh, g_q, g_p = grads[0], grads[1], grads[8]
    if not ctx.has_w_p:  # o'_t is h_t, a view of rh
        g_p = g_rh[1:, :, em:] if g_rh is not None else None
    g_gates = g_q[..., em:] if g_q is not None else None
    out = ctx.backward(*saved, w_rec, w_p, w_q, g_p, g_gates, *grads[9:], *ctx.config)
    by_name = dict(zip(GRADS, out, strict=True))
    wanted = ctx.needs_input_grad
    return tuple(
        present(by_name[k]) if k in by_name and wanted[i] else None
        for i, k in enumerate((*INPUTS, *("config",) * len(ctx.config)))
    )


class MemoryRNNSequence(torch.autograd.Function):
    """``_forward`` with ``_backward_op`` as its gradient: the operators' arithmetic as an
    autograd Function, for a torch without ``torch.library.custom_op`` (before 2.4)."""

    @staticmethod
    def forward(ctx: Any, *inputs: Any) -> RunTensors:
        output = _forward(*inputs)
        _setup(ctx, inputs, output)
        ctx.backward = _backward_op
        return output

    @staticmethod
    def backward(ctx: Any, *given: Tensor | None) -> tuple[Tensor | None, ...]:
        return _gradient(ctx, *given)


def _operators() -> tuple[Callable[..., RunTensors], Callable[..., Grads]] | None:
    """The two ``torch.library`` operators with their fakes and autograd formula, or None
    where this torch has no ``custom_op``."""
    custom_op = getattr(torch.library, "custom_op", None)
    if custom_op is None:
        return None
    forward_op = custom_op("memrnn::memory_rnn_forward", mutates_args=())(_forward)
    backward_op = custom_op("memrnn::memory_rnn_backward", mutates_args=())(_backward_op)
    forward_op.register_fake(_forward_fake)
    backward_op.register_fake(_backward_fake)

    def setup(ctx: Any, inputs: tuple[Any, ...], output: RunTensors) -> None:
        _setup(ctx, inputs, output)
        ctx.backward = backward_op

    forward_op.register_autograd(_gradient, setup_context=setup)
    return forward_op, backward_op


# The inputs whose first dimension is the batch's rows, and the dimension of the rows in
# each of ``_forward``'s outputs.
_ROW_INPUTS = {"xw", "h0", "c0", "noise", "r0", "s0", "values0"}
_ROW_DIMS = (1, 1, 1, 2, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0)


def _batched(x: Tensor, dim: int | None, k: int) -> Tensor:
    """``x`` with its vmapped dimension first (of size k), made so where it has none."""
    return x.movedim(dim, 0) if dim is not None else x.expand(k, *x.shape)


def _vmap_rule(info: Any, in_dims: tuple[int | None, ...], *inputs: Any) -> tuple[Any, Any]:
    """The forward operator under ``torch.func.vmap`` over K models (many runs as one):
    the members fold into the batch, member-major (member k owns rows k B .. (k + 1) B
    - 1), their weights stacked (K, ...), which is how ``fused.forward`` runs K
    controllers at once; the outputs unfold again. The memory acts row by row, so the
    fold changes nothing it computes; the gradient comes from the operator's own."""
    assert OPERATORS is not None
    k = info.batch_size
    args = list(inputs)
    for i, name in enumerate(INPUTS):
        if args[i] is None:
            continue
        stacked = _batched(args[i], in_dims[i], k)
        args[i] = stacked.flatten(0, 1) if name in _ROW_INPUTS else stacked
    out = OPERATORS[0](*args)
    results, dims = [], []
    for y, dim in zip(out, _ROW_DIMS, strict=True):
        absent = y.ndim == 1 and y.numel() == 0
        results.append(y if absent else y.unflatten(dim, (k, -1)))
        dims.append(None if absent else dim)
    return tuple(results), tuple(dims)


OPERATORS = _operators()
if OPERATORS is not None and hasattr(OPERATORS[0], "register_vmap"):
    OPERATORS[0].register_vmap(_vmap_rule)


def _under_vmap(inputs: tuple[Any, ...]) -> bool:
    return any(isinstance(x, Tensor) and torch._C._functorch.is_batchedtensor(x) for x in inputs)


def memory_rnn_forward(*inputs: Any) -> RunTensors:
    """``_forward``, differentiable: the forward operator under ``torch.compile`` and
    ``torch.func.vmap`` (its rule, ``_vmap_rule``), and ``MemoryRNNSequence`` eagerly
    (or under a torch before 2.4)."""
    if OPERATORS is None or not (torch.compiler.is_compiling() or _under_vmap(inputs)):
        return cast(RunTensors, MemoryRNNSequence.apply(*inputs))
    return OPERATORS[0](*inputs)


def memory_rnn_sequence(
    xw: Tensor, h0: Tensor, c0: Tensor | None, w_rec: Tensor, w_p: Tensor | None,
    b_p: Tensor | None, w_q: Tensor, b_q: Tensor, noise: Tensor | None, shape: Shape,
    r0: Tensor | None = None, s0: Tensor | None = None, values0: Tensor | None = None,
) -> tuple[Any, ...]:  # fmt: skip
    """o'_t and the gates for t = 1..T of a controller with its memory, differentiable.

    The inputs are those of ``fused.forward``. Returns o' (B, T, H'), push (B, T, E),
    pop (B, T, E) and the strengths s_t (T, B, n) in the layout's row order (not
    differentiable); with ``shape.final``, then the state after the last step: h_T, c_T
    (None for an Elman RNN), r_T, s_T and the values (B, n, m). For K members at once
    (``fused.forward``) the weights' gradients are (K, ...), each member's summed over
    its own rows.
    """
    layout, e, m = shape.layout, shape.ends, shape.width
    em = e * m
    tensors = [widened(x) for x in (xw, h0, c0, w_rec, w_p, b_p, w_q, b_q, noise, r0, s0,
                                    values0)]  # fmt: skip
    # Lean where no gradient can be asked for (an evaluation); never under compile, whose
    # operator's outputs are dense tensors of their own.
    # Under vmap a member's tensors do not show whether they require a gradient.
    wants_grad = _under_vmap(tuple(tensors)) or any(
        x is not None and x.requires_grad for x in tensors
    )
    lean = not torch.compiler.is_compiling() and not (torch.is_grad_enabled() and wants_grad)
    run = Run(*memory_rnn_forward(*tensors, layout.kind, layout.start, shape.hidden, m,
                                  shape.lstm, shape.final, lean))  # fmt: skip
    p_all = run.p_all if w_p is not None else run.rh[1:, :, em:]
    q_t = run.q_all.transpose(0, 1)
    # Back in the dtype of the controller's state (its h0): a bfloat16 model's outputs
    # are bfloat16, while under autocast the state, and so these, stay float32.
    dtype = h0.dtype
    out = (p_all.transpose(0, 1).to(dtype), q_t[..., em : em + e].to(dtype),
           q_t[..., em + e :].to(dtype), run.strengths[1:].detach())  # fmt: skip
    if not shape.final:
        return out
    c_last = present(run.c_last)
    last = (run.h_last, c_last, run.r_last, run.s_last, run.values_last)
    return (*out, *(x.to(dtype) if x is not None else None for x in last))
