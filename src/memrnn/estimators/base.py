"""What the scikit-learn estimators here share: their parameters kept as given, and
lists of sequences (with the stack machines' teachers) checked at ``fit`` and ``predict``.

Every estimator takes a list of sequences of different lengths, each a (T_i, n) array,
a 3-D array (N, T, n) of sequences of one length, or one series as a 2-D array (T, n)
whose rows are its time steps (never N one-step sequences); every sequence starts from
the zero state. Predictions come back in the form of the inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import scipy.sparse

from memrnn.tasks.stack_teacher import NO_PUSH, StackTeacher

SequenceForm = Literal["list", "batch", "series"]
Predictions = list[np.ndarray] | np.ndarray
"""A list of (T_i, L) arrays for a list of sequences, one array otherwise."""


def as_sequences(
    name: str, seqs: object, what: str, n_features: int | None = None, expecting: str = ""
) -> list[np.ndarray]:
    """Check sequences of 2-D floats; raise ValueError naming ``name[i]`` if bad.

    ``seqs`` is a list (or tuple) of (T_i, n) arrays, a 3-D array (N, T, n) of N
    sequences of one length, or a 2-D array (T, n): one series, its rows time steps
    (``sequence_form`` tells which). ``what`` names the width in messages ("features",
    "outputs"). ``n_features``: the width a fitted estimator, named by ``expecting``,
    requires; None takes it from ``seqs[0]``.
    """
    if seqs is None:
        raise ValueError(
            f"{name}: this estimator requires y to be passed, but the target y is None"
            if what == "outputs"
            else f"{name}: expected sequences, got None"
        )
    if scipy.sparse.issparse(seqs):
        raise ValueError(f"{name}: sparse input is not supported; pass a dense array")
    form, array = sequence_form(seqs), _as_array(seqs)
    if form == "batch":
        seqs = list(array)  # type: ignore[arg-type]
    elif form == "series":
        seqs = [array]
    if not isinstance(seqs, list | tuple):
        raise ValueError(
            f"{name}: expected a list of (T, {what[0]}) arrays, one per sequence, "
            f"a 3-D array or one 2-D series, got {type(seqs).__name__}"
            + (f" of shape {array.shape}" if array is not None else "")
            + (
                " (Reshape your data: .reshape(-1, 1) is one series of one feature)"
                if array is not None and array.ndim == 1
                else ""
            )
        )
    if len(seqs) == 0:
        raise ValueError(f"{name}: expected at least one sequence, got an empty list")
    out = []
    first = name if form == "series" else f"{name}[0]"
    for i, s in enumerate(seqs):
        label = name if form == "series" else f"{name}[{i}]"
        if np.iscomplexobj(s):
            raise ValueError(f"{label}: Complex data not supported")
        try:
            a = np.asarray(s, dtype=np.float64)
        except ValueError as err:
            raise ValueError(f"{label}: cannot be read as a float array ({err})") from None
        except TypeError as err:  # an object that is no number at all (a dict, None)
            raise TypeError(f"{label}: cannot be read as a float array ({err})") from None
        if a.ndim != 2:
            raise ValueError(
                f"{label}: expected a 2-D (T, {what[0]}) array, got shape {a.shape}"
                + (" (use .reshape(-1, 1) for one channel)" if a.ndim == 1 else "")
            )
        if a.shape[0] == 0:
            raise ValueError(f"{label}: is empty (0 time steps)")
        if a.shape[1] == 0:  # scikit-learn's wording, which its estimator checks expect
            raise ValueError(
                f"{label}: 0 feature(s) (shape={a.shape}) while a minimum of 1 is required."
            )
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{label}: contains NaN or inf")
        if n_features is None:
            n_features, expecting = a.shape[1], ""
        elif a.shape[1] != n_features:
            if expecting:  # scikit-learn's wording, which its estimator checks expect
                raise ValueError(
                    f"{label} has {a.shape[1]} {what}, but {expecting} is expecting "
                    f"{n_features} {what} as input"
                )
            raise ValueError(f"{label}: has {a.shape[1]} {what} but {first} has {n_features}")
        out.append(a)
    return out


def sequence_form(seqs: object) -> SequenceForm:
    """How ``seqs`` holds its sequences: ``"batch"`` for a 3-D array (N, T, n),
    ``"series"`` for a 2-D array (T, n), one sequence whose rows are time steps, and
    ``"list"`` for anything else (a list of (T_i, n) arrays). A nested Python list is
    always a list of sequences, never read as one series; other array-likes (with
    ``__array__``) are read as arrays."""
    array = _as_array(seqs)
    if array is not None and array.ndim == 3:
        return "batch"
    if array is not None and array.ndim == 2:
        return "series"
    return "list"


def _as_array(seqs: object) -> np.ndarray | None:
    """``seqs`` as an array if it is an array or an array-like other than a list or tuple."""
    if isinstance(seqs, np.ndarray):
        return seqs
    if not isinstance(seqs, list | tuple) and hasattr(seqs, "__array__"):
        return np.asarray(seqs)
    return None


def as_list(form: SequenceForm, predictions: Predictions) -> list[np.ndarray]:
    """The per-sequence arrays of predictions that ``shaped_like`` gave in ``form``."""
    if form == "series":
        return [np.asarray(predictions)]
    return list(predictions)


def shaped_like(form: SequenceForm, outputs: list[np.ndarray], flat: bool) -> Predictions:
    """Predictions in the form of the inputs: a list for a list, an (N, T, L) array for a
    3-D array, a (T, L) array for one series; each (T_i,) instead of (T_i, 1) where the
    estimator was fitted on 1-D targets (``flat``), as scikit-learn's regressors do."""
    if flat:
        outputs = [y[:, 0] for y in outputs]
    if form == "batch":
        return np.stack(outputs)
    if form == "series":
        return outputs[0]
    return outputs


def aligned_sequences(X: object, Y: object) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Inputs X (T_i, n) and targets Y (T_i, L) aligned step by step, checked by
    ``as_sequences``; ValueError naming Y where the counts or lengths differ. One series
    X (T, n) may have 1-D targets Y (T,), read as (T, 1) (see ``flat_targets``)."""
    xs = as_sequences("X", X, "features")
    if flat_targets(X, Y):
        Y = np.asarray(Y)[:, None]  # an array-like, flat_targets checked
    ys = as_sequences("Y", Y, "outputs")
    if len(ys) != len(xs):
        raise ValueError(f"Y: has {len(ys)} sequences but X has {len(xs)}")
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if y.shape[0] != x.shape[0]:
            raise ValueError(f"Y[{i}]: has {y.shape[0]} time steps but X[{i}] has {x.shape[0]}")
    return xs, ys


def flat_targets(X: object, Y: object) -> bool:
    """Whether Y is the 1-D target array (T,) of one series X (T, n): one output per step."""
    targets = _as_array(Y)
    return sequence_form(X) == "series" and targets is not None and targets.ndim == 1


def teaching_data(
    X: object, y: object, nonterminals: object
) -> tuple[list[np.ndarray], Sequence[StackTeacher], np.ndarray]:
    """The inputs (T_i, n), the teachers and the nonterminal codes (K, n) that a stack
    machine is trained on by teacher forcing, checked together: a teacher for every
    sequence, with T_i + 1 steps of allowed actions and outputs; ValueError naming the
    culprit otherwise (Paassen, Schulz, Hammer 2021, Algorithm 4). One series X (T, n)
    may have one teacher y, not in a list."""
    if sequence_form(X) == "series" and isinstance(y, StackTeacher):
        y = [y]
    xs = as_sequences("X", X, "features")
    n = xs[0].shape[1]
    try:
        codes = np.asarray(nonterminals, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"nonterminals: cannot be read as a float array ({err})") from None
    if codes.ndim != 2 or codes.shape[1] != n:
        raise ValueError(f"nonterminals: expected shape (K, {n}), got {codes.shape}")
    if len(codes) == 0:
        raise ValueError(f"nonterminals: expected at least one (K >= 1), got shape {codes.shape}")
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
