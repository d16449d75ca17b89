"""The neural Stack, Queue and DeQue written out literally, with a hand-written backward.

This module is the teaching version and the test oracle for the vectorised memories. It
follows Grefenstette et al. (2015), Eqs. (1)-(11) for the forward pass and Appendix A,
Eqs. (12)-(18), for the backward pass, one sequence at a time, in NumPy float64, with every
sum written as a loop exactly as the paper writes it. It is slow on purpose: O(T^3) per
sequence.

Indices in the code are 0-based; the docstrings quote the paper's 1-based equations. Row 0
is the bottom of the memory (the front of a queue) and the last row is the top.

Two ends, one rule. A stack pops and reads at the top, where the rows "beyond" row i are
those above it (j > i). A queue pops and reads at the bottom, where the rows beyond i are
those below it (j < i). A deque does both. So every equation is written once, for a
``side``, and the three memories are short compositions of the same four pieces: ``pop``,
``read_weights`` and their Jacobians.

Derivatives at the kinks of max and min follow the paper's footnote 1: the derivative of
the left argument is taken, so d max(0, x)/dx = 0 at x = 0 and d min(s, e)/ds = 1 at s = e.

Two places where the printed Appendix A and the true derivative part ways (both checked
against automatic differentiation in the tests):

* Eq. (16) lists the entry dS_t[i]/dS_{t-1}[n] = 1 for i < n < t only. When row i survives
  a pop (s_t[i] > 0), its own old strength passes through with derivative 1 whether or not
  the pop reached it, so n = i belongs to that case as well: i <= n < t.
* Eq. (18) takes h(i, n) = -1 when sum_{j>i} s_t[j] <= 1. At equality the weight is
  max(0, 0) and the left-argument rule gives derivative 0, so we use the strict '<'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Side = Literal["top", "bottom"]
Array = NDArray[np.float64]

__all__ = [
    "DequeTrace",
    "Side",
    "Trace",
    "deque_backward",
    "deque_forward",
    "pop",
    "pop_jacobian",
    "queue_backward",
    "queue_forward",
    "read",
    "read_jacobian",
    "read_weights",
    "stack_backward",
    "stack_forward",
]


def _beyond(i: int, n_rows: int, side: Side) -> range:
    """Rows between row i and the given end: j > i for the top, j < i for the bottom."""
    return range(i + 1, n_rows) if side == "top" else range(0, i)


def _sum_beyond(s: Array, i: int, side: Side) -> float:
    total = 0.0
    for j in _beyond(i, len(s), side):
        total += s[j]
    return total


# ---------------------------------------------------------------------------------------
# Forward pieces: Eqs. (2), (3), (4), (5), (7), (8), (10), (11).


def pop(s_prev: Array, u: float, side: Side) -> Array:
    """Remove strength ``u`` from one end.

    Eq. (2) for the top: s_t[i] = max(0, s_{t-1}[i] - max(0, u_t - sum_{j>i} s_{t-1}[j])).
    Eq. (4) for the bottom, with sum_{j<i}. Also Eqs. (7) and (8) of the deque.
    """
    s = np.zeros_like(s_prev)
    for i in range(len(s_prev)):
        s[i] = max(0.0, s_prev[i] - max(0.0, u - _sum_beyond(s_prev, i, side)))
    return s


def read_weights(s: Array, side: Side) -> Array:
    """The weight of each row in the read: min(s[i], max(0, 1 - sum_beyond s[j]))."""
    w = np.zeros_like(s)
    for i in range(len(s)):
        w[i] = min(s[i], max(0.0, 1.0 - _sum_beyond(s, i, side)))
    return w


def read(s: Array, values: Array, side: Side) -> Array:
    """Eq. (3) (top) and Eq. (5) (bottom): r = sum_i weight_i * V[i]."""
    w = read_weights(s, side)
    r = np.zeros(values.shape[1])
    for i in range(len(s)):
        r += w[i] * values[i]
    return r


# ---------------------------------------------------------------------------------------
# Backward pieces: Eqs. (16), (17), (18) and their mirror images for the bottom.


def pop_jacobian(s_prev: Array, u: float, side: Side) -> tuple[Array, Array]:
    """Derivatives of ``pop(s_prev, u, side)``.

    Returns ``(J, j_u)`` with J[i, n] = ds_t[i]/ds_{t-1}[n] (Eq. 16) and
    j_u[i] = ds_t[i]/du_t (Eq. 17). For the top::

        ds_t[i]/ds_{t-1}[n] = 1     if s_t[i] > 0 and n = i
                            = 1     if s_t[i] > 0 and a_i > 0 and n > i
                            = 0     otherwise
        ds_t[i]/du_t        = -1    if s_t[i] > 0 and a_i > 0, else 0

    where a_i = u_t - sum_{j>i} s_{t-1}[j] is how much of the pop reaches row i. For the
    bottom, replace "n > i" by "n < i" and the sum by sum_{j<i}: the same argument with the
    order of the rows reversed.
    """
    n_rows = len(s_prev)
    s_new = pop(s_prev, u, side)
    jac = np.zeros((n_rows, n_rows))
    jac_u = np.zeros(n_rows)
    for i in range(n_rows):
        if not s_new[i] > 0:  # max(0, x) at x <= 0: derivative of the left argument, 0
            continue
        jac[i, i] = 1.0
        if u - _sum_beyond(s_prev, i, side) > 0:
            for n in _beyond(i, n_rows, side):
                jac[i, n] = 1.0
            jac_u[i] = -1.0
    return jac, jac_u


def read_jacobian(s: Array, side: Side) -> Array:
    """h(i, n) of Eq. (18): the derivative of the weight of row i with respect to s[n].

    For the top::

        h(i, n) = delta_in   if s[i] <= max(0, 1 - sum_{j>i} s[j])
                = -1         if n > i and s[i] > max(0, 1 - sum_{j>i} s[j])
                               and sum_{j>i} s[j] < 1
                = 0          otherwise

    so that dr/ds[n] = sum_i h(i, n) V[i]. For the bottom, "n > i" becomes "n < i".
    """
    n_rows = len(s)
    h = np.zeros((n_rows, n_rows))
    for i in range(n_rows):
        room = 1.0 - _sum_beyond(s, i, side)
        if s[i] <= max(0.0, room):
            h[i, i] = 1.0
        elif room > 0:
            for n in _beyond(i, n_rows, side):
                h[i, n] = -1.0
    return h


def _read_backward(s: Array, values: Array, grad_read: Array, side: Side) -> tuple[Array, Array]:
    """Chain rule through one read: returns (dL/dV rows, dL/ds) from dL/dr."""
    # Eq. (15): dr/dV[n] = weight of row n.
    w = read_weights(s, side)
    grad_values = np.zeros_like(values)
    for n in range(len(s)):
        grad_values[n] = w[n] * grad_read
    # Eq. (18): dr/ds[n] = sum_i h(i, n) V[i].
    h = read_jacobian(s, side)
    grad_s = np.zeros(len(s))
    for n in range(len(s)):
        for i in range(len(s)):
            grad_s[n] += h[i, n] * float(values[i] @ grad_read)
    return grad_values, grad_s


def _pop_backward(s_prev: Array, u: float, grad_s: Array, side: Side) -> tuple[Array, float]:
    """Chain rule through one pop: returns (dL/ds_{t-1}, dL/du_t) from dL/ds_t."""
    jac, jac_u = pop_jacobian(s_prev, u, side)
    grad_prev = np.zeros(len(s_prev))
    grad_u = 0.0
    for i in range(len(s_prev)):
        for n in range(len(s_prev)):
            grad_prev[n] += jac[i, n] * grad_s[i]
        grad_u += jac_u[i] * grad_s[i]
    return grad_prev, grad_u


# ---------------------------------------------------------------------------------------
# Stack and queue: pop at one end, push at the top, read at the same end as the pop.


@dataclass(frozen=True)
class Trace:
    """What a forward pass of a stack or queue leaves for its backward pass.

    ``strengths[t]`` is s_t (t + 1 rows, 0-based t); ``reads`` is (T, m).
    """

    values: Array
    push: Array
    pop: Array
    strengths: list[Array]
    reads: Array


def _one_end_forward(values: Array, push: Array, pop_: Array, side: Side) -> Trace:
    values, push, pop_ = _as_sequence(values, push, pop_)
    steps, width = values.shape
    s = np.zeros(0)
    memory = np.zeros((0, width))
    strengths: list[Array] = []
    reads = np.zeros((steps, width))
    for t in range(steps):
        s = np.append(pop(s, pop_[t], side), push[t])  # Eq. (2)/(4): pop, then s_t[t] = d_t
        memory = np.vstack([memory, values[t]])  # Eq. (1): V_t[t] = v_t
        reads[t] = read(s, memory, side)  # Eq. (3)/(5)
        strengths.append(s)
    return Trace(values, push, pop_, strengths, reads)


def _one_end_backward(trace: Trace, grad_reads: Array, side: Side) -> tuple[Array, Array, Array]:
    steps = len(trace.push)
    grad_values = np.zeros_like(trace.values)
    grad_push = np.zeros(steps)
    grad_pop = np.zeros(steps)
    grad_s = np.zeros(steps)  # dL/ds_t from the later steps; s_{T} gets none
    for t in reversed(range(steps)):
        s_t = trace.strengths[t]
        # Eqs. (12)-(13): values never move, so dL/dv_n collects every read of row n.
        g_values, g_read_s = _read_backward(s_t, trace.values[: t + 1], grad_reads[t], side)
        grad_values[: t + 1] += g_values
        grad_s = grad_s[: t + 1] + g_read_s
        grad_push[t] = grad_s[t]  # Eq. (14): ds_t[t]/dd_t = 1
        s_prev = trace.strengths[t - 1] if t > 0 else np.zeros(0)
        grad_s, grad_pop[t] = _pop_backward(s_prev, trace.pop[t], grad_s[:t], side)  # (16)-(17)
    return grad_values, grad_push, grad_pop


def stack_forward(values: Array, push: Array, pop: Array) -> Trace:
    """Run a neural stack over one sequence: values (T, m), push d (T,), pop u (T,)."""
    return _one_end_forward(values, push, pop, "top")


def stack_backward(trace: Trace, grad_reads: Array) -> tuple[Array, Array, Array]:
    """dL/dvalues (T, m), dL/dpush (T,), dL/dpop (T,) from dL/dreads (T, m)."""
    return _one_end_backward(trace, np.asarray(grad_reads, dtype=np.float64), "top")


def queue_forward(values: Array, push: Array, pop: Array) -> Trace:
    """Run a neural queue over one sequence: Eqs. (1), (4), (5)."""
    return _one_end_forward(values, push, pop, "bottom")


def queue_backward(trace: Trace, grad_reads: Array) -> tuple[Array, Array, Array]:
    """dL/dvalues, dL/dpush, dL/dpop of a queue from dL/dreads."""
    return _one_end_backward(trace, np.asarray(grad_reads, dtype=np.float64), "bottom")


# ---------------------------------------------------------------------------------------
# Deque: pop the top, then the bottom, then push at both ends, then read at both ends.


@dataclass(frozen=True)
class DequeTrace:
    """Forward record of a deque. ``after_top_pop[t]`` is s^top_t of Eq. (7)."""

    values_top: Array
    values_bot: Array
    push_top: Array
    push_bot: Array
    pop_top: Array
    pop_bot: Array
    after_top_pop: list[Array]
    strengths: list[Array]
    reads_top: Array
    reads_bot: Array


def _deque_rows(values_top: Array, values_bot: Array, t: int) -> Array:
    """V_t of Eq. (6): the bottom values newest-first, then the top values oldest-first."""
    return np.vstack([values_bot[t::-1], values_top[: t + 1]])


def deque_forward(
    values_top: Array,
    values_bot: Array,
    push_top: Array,
    push_bot: Array,
    pop_top: Array,
    pop_bot: Array,
) -> DequeTrace:
    """Run a neural deque over one sequence: Eqs. (6)-(11)."""
    values_top, push_top, pop_top = _as_sequence(values_top, push_top, pop_top)
    values_bot, push_bot, pop_bot = _as_sequence(values_bot, push_bot, pop_bot)
    if values_bot.shape != values_top.shape:
        raise ValueError(
            f"values_bot: expected shape {values_top.shape} to match values_top, "
            f"got {values_bot.shape}"
        )
    steps, width = values_top.shape
    s = np.zeros(0)
    memory = np.zeros((0, width))
    after_top_pop: list[Array] = []
    strengths: list[Array] = []
    reads_top = np.zeros((steps, width))
    reads_bot = np.zeros((steps, width))
    for t in range(steps):
        s_top = pop(s, pop_top[t], "top")  # Eq. (7)
        s_both = pop(s_top, pop_bot[t], "bottom")  # Eq. (8)
        s = np.concatenate([[push_bot[t]], s_both, [push_top[t]]])  # Eq. (9)
        memory = np.vstack([values_bot[t], memory, values_top[t]])  # Eq. (6)
        reads_top[t] = read(s, memory, "top")  # Eq. (10)
        reads_bot[t] = read(s, memory, "bottom")  # Eq. (11)
        after_top_pop.append(s_top)
        strengths.append(s)
    return DequeTrace(
        values_top,
        values_bot,
        push_top,
        push_bot,
        pop_top,
        pop_bot,
        after_top_pop,
        strengths,
        reads_top,
        reads_bot,
    )


def deque_backward(
    trace: DequeTrace, grad_reads_top: Array, grad_reads_bot: Array
) -> tuple[Array, Array, Array, Array, Array, Array]:
    """Gradients in the order of ``deque_forward``'s arguments, from dL/dreads at both ends."""
    steps = len(trace.push_top)
    grad_vtop = np.zeros_like(trace.values_top)
    grad_vbot = np.zeros_like(trace.values_bot)
    grad_dtop, grad_dbot = np.zeros(steps), np.zeros(steps)
    grad_utop, grad_ubot = np.zeros(steps), np.zeros(steps)
    grad_s = np.zeros(2 * steps)
    for t in reversed(range(steps)):
        s_t = trace.strengths[t]
        memory = _deque_rows(trace.values_top, trace.values_bot, t)
        grad_s = grad_s[: 2 * t + 2].copy()
        grad_rows = np.zeros_like(memory)
        ends: tuple[tuple[Side, Array], ...] = (("top", grad_reads_top), ("bottom", grad_reads_bot))
        for side, grad_reads in ends:
            g_rows, g_s = _read_backward(s_t, memory, np.asarray(grad_reads[t], float), side)
            grad_rows += g_rows
            grad_s += g_s
        # Eq. (6) unrolled: row k of V_t is v^bot_{t-k} for k <= t, else v^top_{k-t-1}.
        for k in range(2 * t + 2):
            if k <= t:
                grad_vbot[t - k] += grad_rows[k]
            else:
                grad_vtop[k - t - 1] += grad_rows[k]
        # Eq. (9): the two new rows are the pushes; the rest is s^both shifted by one.
        grad_dbot[t], grad_dtop[t] = grad_s[0], grad_s[-1]
        grad_both = grad_s[1:-1]
        grad_after_top, grad_ubot[t] = _pop_backward(
            trace.after_top_pop[t], trace.pop_bot[t], grad_both, "bottom"
        )  # Eq. (8)
        s_prev = trace.strengths[t - 1] if t > 0 else np.zeros(0)
        grad_s, grad_utop[t] = _pop_backward(s_prev, trace.pop_top[t], grad_after_top, "top")
    return grad_vtop, grad_vbot, grad_dtop, grad_dbot, grad_utop, grad_ubot


def _as_sequence(values: Array, push: Array, pop_: Array) -> tuple[Array, Array, Array]:
    """Coerce one unbatched sequence to float64 and check that its parts agree in length,
    that the values are finite and that push and pop lie in [0, 1]."""
    values = np.asarray(values, dtype=np.float64)
    push = np.asarray(push, dtype=np.float64)
    pop_ = np.asarray(pop_, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"values: expected shape (T, m), got {values.shape}")
    if push.shape != (len(values),) or pop_.shape != (len(values),):
        raise ValueError(
            f"push and pop: expected shape ({len(values)},) to match values, "
            f"got {push.shape} and {pop_.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError("values: contains NaN or inf")
    for name, gate in (("push", push), ("pop", pop_)):
        if not np.all((gate >= 0) & (gate <= 1)):  # NaN fails both comparisons
            raise ValueError(f"{name}: must lie in [0, 1] with no NaN, got {gate.tolist()}")
    return values, push, pop_
