"""What the scikit-learn estimators here share: their parameters kept as given, and
lists of sequences (with the stack machines' teachers) checked at ``fit`` and ``predict``.

Every estimator takes a list of sequences of different lengths, each a (T_i, n) array;
every sequence starts from the zero state.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrnn.tasks.stack_teacher import NO_PUSH, StackTeacher


def as_sequences(
    name: str, seqs: object, what: str, n_features: int | None = None, source: str = ""
) -> list[np.ndarray]:
    """Check a list of 2-D float sequences; raise ValueError naming ``name[i]`` if bad.

    ``what`` names the width in messages ("features", "outputs"). ``n_features``: the
    required width, described as ``source`` in messages; None takes it from ``seqs[0]``.
    """
    if isinstance(seqs, np.ndarray) and seqs.ndim == 3:
        seqs = list(seqs)  # a (N, T, n) batch of equal-length sequences
    if not isinstance(seqs, list | tuple):
        raise ValueError(
            f"{name}: expected a list of (T, {what[0]}) arrays, one per sequence, "
            f"got {type(seqs).__name__}"
            + (f" of shape {seqs.shape}" if isinstance(seqs, np.ndarray) else "")
        )
    if len(seqs) == 0:
        raise ValueError(f"{name}: expected at least one sequence, got an empty list")
    out = []
    for i, s in enumerate(seqs):
        try:
            a = np.asarray(s, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name}[{i}]: cannot be read as a float array ({err})") from None
        if a.ndim != 2:
            raise ValueError(
                f"{name}[{i}]: expected a 2-D (T, {what[0]}) array, got shape {a.shape}"
                + (" (use .reshape(-1, 1) for one channel)" if a.ndim == 1 else "")
            )
        if a.shape[0] == 0:
            raise ValueError(f"{name}[{i}]: is empty (0 time steps)")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name}[{i}]: contains NaN or inf")
        if n_features is None:
            n_features, source = a.shape[1], f"{name}[0]"
        elif a.shape[1] != n_features:
            raise ValueError(f"{name}[{i}]: has {a.shape[1]} {what} but {source} has {n_features}")
        out.append(a)
    return out


def aligned_sequences(X: object, Y: object) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Inputs X (T_i, n) and targets Y (T_i, L) aligned step by step, checked by
    ``as_sequences``; ValueError naming Y where the counts or lengths differ."""
    xs = as_sequences("X", X, "features")
    ys = as_sequences("Y", Y, "outputs")
    if len(ys) != len(xs):
        raise ValueError(f"Y: has {len(ys)} sequences but X has {len(xs)}")
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if y.shape[0] != x.shape[0]:
            raise ValueError(f"Y[{i}]: has {y.shape[0]} time steps but X[{i}] has {x.shape[0]}")
    return xs, ys


def teaching_data(
    X: object, y: object, nonterminals: object
) -> tuple[list[np.ndarray], Sequence[StackTeacher], np.ndarray]:
    """The inputs (T_i, n), the teachers and the nonterminal codes (K, n) that a stack
    machine is trained on by teacher forcing, checked together: a teacher for every
    sequence, with T_i + 1 steps of allowed actions and outputs; ValueError naming the
    culprit otherwise (Paassen, Schulz, Hammer 2021, Algorithm 4)."""
    xs = as_sequences("X", X, "features")
    n = xs[0].shape[1]
    try:
        codes = np.asarray(nonterminals, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"nonterminals: cannot be read as a float array ({err})") from None
    if codes.ndim != 2 or codes.shape[1] != n:
        raise ValueError(f"nonterminals: expected shape (K, {n}), got {codes.shape}")
    if not np.all(np.isfinite(codes)):
        raise ValueError("nonterminals: contains NaN or inf")
    if not isinstance(y, list | tuple):
        raise ValueError(f"y: expected a list of StackTeacher, got {type(y).__name__}")
    if len(y) != len(xs):
        raise ValueError(f"y: has {len(y)} teachers but X has {len(xs)} sequences")
    for i, (x, teacher) in enumerate(zip(xs, y, strict=True)):
        _check_teacher(i, x, teacher, len(codes))
    return xs, y, codes


def _check_teacher(i: int, x: np.ndarray, teacher: object, n_nonterminals: int) -> None:
    if not isinstance(teacher, StackTeacher):
        raise ValueError(f"y[{i}]: expected a StackTeacher, got {type(teacher).__name__}")
    steps = x.shape[0] + 1
    if len(teacher.actions) != steps or len(teacher.shift) != steps:
        raise ValueError(
            f"y[{i}]: needs T + 1 = {steps} steps of actions and shifts, got "
            f"{len(teacher.actions)} and {len(teacher.shift)}"
        )
    if np.asarray(teacher.outputs).ndim != 2 or len(teacher.outputs) != steps:
        raise ValueError(f"y[{i}]: outputs must be ({steps}, L), got {np.shape(teacher.outputs)}")
    for t, actions in enumerate(teacher.actions):
        for j, a in actions:
            if j < 0 or not NO_PUSH <= a < n_nonterminals or (j == 0 and a == NO_PUSH):
                raise ValueError(f"y[{i}]: action {(j, a)} at step {t} is not allowed")


def store_params(estimator: object, params: dict[str, object]) -> None:
    """Keep every ``__init__`` argument unchanged, as scikit-learn's contract asks;
    called as ``self._store_params(locals())``."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)
