"""RBF-SVM classification fast enough for the reservoir stack machine.

Fitting: the RSM trains several SVMs on the same rows (c_pop and c_push on the action
rows, c_shift and the c_out SVMs on the step rows). ``fit_classifiers`` computes their
common RBF kernel matrix once, with BLAS, and hands it to libsvm as a precomputed
kernel; libsvm would otherwise evaluate kernel rows in its own loops, once per SVM
(measured on repeat copy, 9150 rows of 1008 features: 6-9 s per SVM directly, 2 s for
the shared matrix and 0.4 s per SVM on it).

Prediction: scikit-learn's ``SVC.predict`` spends much of a small call validating its
input; ``RBFClassifier`` predicts from the support vectors, dual coefficients and
intercepts with the same one-against-one vote, without the per-call checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC
from sklearn.utils import Tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from memrnn.validation import check_float

GRAM_MAX_ROWS = 12_000  # a precomputed kernel above this would need over 1.1 GB


def automatic_gamma(X: np.ndarray) -> float:
    """scikit-learn's gamma="scale": 1 / (n_features Var(X)), or 1 for constant X."""
    variance = float(X.var())
    return 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0


def rbf_gram(X: np.ndarray, gamma: float) -> np.ndarray:
    """K[i, j] = exp(-gamma |x_i - x_j|^2), in place to keep one (n, n) array."""
    norms = (X**2).sum(axis=1)
    K = X @ X.T
    K *= -2.0
    K += norms[:, None]
    K += norms[None, :]
    np.maximum(K, 0.0, out=K)  # rounding can make a distance slightly negative
    K *= -gamma
    np.exp(K, out=K)
    return K


class RBFClassifier(ClassifierMixin, BaseEstimator):
    """An RBF-kernel SVM with scikit-learn's automatic kernel width (gamma="scale").

    A scikit-learn classifier over rows (not sequences); ``score`` is the accuracy.

    Args (stored as given; checked by :meth:`fit`):
        C: the regularisation of the SVM.
        gamma_factor: multiplies the automatic gamma = 1 / (n_features Var(X)); below 1
            the kernel is wider, which the copy tasks need (their bit channels are noise
            to every stack decision).
    """

    def __init__(self, C: float = 1.0, gamma_factor: float = 1.0) -> None:
        self.C = C
        self.gamma_factor = gamma_factor

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags

    def fit(
        self,
        X: np.ndarray,
        y: np.ndarray,
        *,
        gram: np.ndarray | None = None,
        base_gamma: float | None = None,
    ) -> RBFClassifier:
        """Fit on rows X (n, d) with labels y (n,); returns self. ``gram``, if given, is
        ``rbf_gram(X, gamma_)`` computed already; ``base_gamma`` is ``automatic_gamma(X)``
        where the caller has it (it reads all X)."""
        C = check_float("C", self.C, above=0)
        factor = check_float("gamma_factor", self.gamma_factor, above=0)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.gamma_ = factor * (automatic_gamma(X) if base_gamma is None else base_gamma)
        if gram is None:
            svc = SVC(C=C, kernel="rbf", gamma=self.gamma_).fit(X, y)
            self.support_vectors_ = svc.support_vectors_
        else:
            if gram.shape != (len(X), len(X)):
                raise ValueError(f"gram: expected shape {(len(X), len(X))}, got {gram.shape}")
            svc = SVC(C=C, kernel="precomputed").fit(gram, y)
            self.support_vectors_ = X[svc.support_]
        self.svc_ = svc
        self.support_ = svc.support_  # row indices into X, for SharedKernel
        self.classes_ = svc.classes_
        self._sv_norms = (self.support_vectors_**2).sum(axis=1)
        self._starts = np.concatenate([[0], np.cumsum(svc.n_support_)])
        # scikit-learn negates libsvm's coefficients for two classes; undo that
        sign = -1.0 if len(svc.classes_) == 2 else 1.0
        self._dual = sign * svc.dual_coef_
        self._intercept = sign * svc.intercept_
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Labels for the rows of X, as ``SVC.predict`` gives them (one-against-one vote)."""
        check_is_fitted(self)
        return self.predict_rows(validate_data(self, X, dtype=np.float64, reset=False))

    def predict_rows(self, X: np.ndarray) -> np.ndarray:
        """``predict`` without its checks, for inner loops (the reservoir memory machine
        asks once per time step): X must be a float64 (N, n_features_in_) array."""
        return self.vote(rbf_kernel(X, self.support_vectors_, self._sv_norms, self.gamma_))

    def vote(self, K: np.ndarray) -> np.ndarray:
        """Labels from K[i, s], the kernel between query i and support vector s."""
        n = len(self.classes_)
        votes = np.zeros((len(K), n), dtype=np.int64)
        pair = 0
        for i in range(n):
            rows_i = slice(self._starts[i], self._starts[i + 1])
            for j in range(i + 1, n):
                rows_j = slice(self._starts[j], self._starts[j + 1])
                decision = (
                    K[:, rows_i] @ self._dual[j - 1, rows_i]
                    + K[:, rows_j] @ self._dual[i, rows_j]
                    + self._intercept[pair]
                )
                votes[:, i] += decision > 0
                votes[:, j] += decision <= 0
                pair += 1
        return np.asarray(self.classes_[np.argmax(votes, axis=1)])


def rbf_kernel(X: np.ndarray, Z: np.ndarray, z_norms: np.ndarray, gamma: float) -> np.ndarray:
    """K[i, j] = exp(-gamma |x_i - z_j|^2), given the squared norms of the rows of Z."""
    distances = (X**2).sum(axis=1)[:, None] - 2 * X @ Z.T
    return np.exp(-gamma * np.maximum(distances + z_norms, 0.0))


class SharedKernel:
    """Several classifiers fitted on the same rows, asked about the same queries.

    The kernel between the queries and the union of the SVMs' support vectors is
    computed once and each SVM votes on its own columns; the RSM asks c_pop and c_push
    (and c_shift and the c_out SVMs) this way, which halves its prediction time. The
    labels are those of each classifier's own ``predict``.
    """

    def __init__(self, classifiers: Sequence[RBFClassifier | ConstantClassifier]) -> None:
        self.classifiers = list(classifiers)
        svms = [c for c in self.classifiers if isinstance(c, RBFClassifier)]
        if any(c.gamma_ != svms[0].gamma_ for c in svms):
            raise ValueError("classifiers: a shared kernel needs one gamma for all of them")
        self._gamma = svms[0].gamma_ if svms else 1.0
        union, first = np.unique(
            np.concatenate([c.support_ for c in svms] or [np.zeros(0, int)]), return_index=True
        )
        vectors = np.vstack([c.support_vectors_ for c in svms] or [np.zeros((0, 0))])
        self._vectors = vectors[first]
        self._norms = (self._vectors**2).sum(axis=1)
        self._columns = [
            np.searchsorted(union, c.support_) if isinstance(c, RBFClassifier) else None
            for c in self.classifiers
        ]

    def predict(self, X: np.ndarray) -> list[np.ndarray]:
        """Each classifier's labels for the rows of X, in the order given."""
        X = np.asarray(X, dtype=np.float64)
        K = rbf_kernel(X, self._vectors, self._norms, self._gamma) if len(self._vectors) else None
        labels = []
        for classifier, columns in zip(self.classifiers, self._columns, strict=True):
            if isinstance(classifier, RBFClassifier):
                assert K is not None and columns is not None
                labels.append(classifier.vote(K[:, columns]))
            else:
                labels.append(classifier.predict(X))
        return labels


class ConstantClassifier:
    """Stands in for a classifier whose training labels never vary (an SVM needs two)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(len(X), self.value)

    predict_rows = predict


def fit_classifiers(
    X: np.ndarray, targets: Sequence[np.ndarray], C: float, gamma_factor: float = 1.0
) -> list[RBFClassifier | ConstantClassifier]:
    """One RBF-SVM per target vector on the same rows X (a constant where a target
    holds a single label), sharing one precomputed kernel matrix when X is small
    enough; the SVMs are the same as fitted one by one, only faster."""
    X = np.asarray(X, dtype=np.float64)
    varying = [len(np.unique(y)) > 1 for y in targets]
    gram = None
    base_gamma = automatic_gamma(X) if any(varying) else 1.0
    if any(varying) and len(X) <= GRAM_MAX_ROWS:
        gram = rbf_gram(X, gamma_factor * base_gamma)
    return [
        RBFClassifier(C=C, gamma_factor=gamma_factor).fit(X, y, gram=gram, base_gamma=base_gamma)
        if vary
        else ConstantClassifier(np.unique(y)[0])
        for y, vary in zip(targets, varying, strict=True)
    ]


def fit_classifier(
    X: np.ndarray, y: np.ndarray, C: float, gamma_factor: float = 1.0
) -> RBFClassifier | ConstantClassifier:
    """An RBF-SVM on (X, y), or a constant when y holds a single label."""
    return fit_classifiers(X, [y], C, gamma_factor)[0]
