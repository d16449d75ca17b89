"""RBF-SVM classification fast enough to be asked once per step of a sequence.

The reservoir stack machine asks its classifiers inside a loop over time; scikit-learn's
``SVC.predict`` spends much of a small call validating its input. ``RBFClassifier``
fits an ``SVC`` and predicts from its public support vectors, dual coefficients and
intercepts with the same one-against-one vote, without the per-call checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.svm import SVC


class RBFClassifier:
    """An RBF-kernel SVM with scikit-learn's automatic kernel width (gamma="scale").

    Args:
        C: the regularisation of the SVM.
    """

    def __init__(self, C: float = 1.0) -> None:
        self.C = C

    def fit(self, X: np.ndarray, y: np.ndarray) -> RBFClassifier:
        X = np.asarray(X, dtype=np.float64)
        variance = X.var()
        # "scale": 1 / (n_features * Var(X)), computed here so that predict can use it
        self.gamma_ = 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
        svc = SVC(C=self.C, kernel="rbf", gamma=self.gamma_).fit(X, y)
        self.svc_ = svc
        self.classes_ = svc.classes_
        self.support_vectors_ = svc.support_vectors_
        self._sv_norms = (svc.support_vectors_**2).sum(axis=1)
        self._starts = np.concatenate([[0], np.cumsum(svc.n_support_)])
        # scikit-learn negates libsvm's coefficients for two classes; undo that
        sign = -1.0 if len(svc.classes_) == 2 else 1.0
        self._dual = sign * svc.dual_coef_
        self._intercept = sign * svc.intercept_
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Labels for the rows of X, as ``SVC.predict`` gives them (one-against-one vote)."""
        X = np.asarray(X, dtype=np.float64)
        distances = (X**2).sum(axis=1)[:, None] - 2 * X @ self.support_vectors_.T
        K = np.exp(-self.gamma_ * np.maximum(distances + self._sv_norms, 0.0))
        n = len(self.classes_)
        votes = np.zeros((len(X), n), dtype=np.int64)
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


class ConstantClassifier:
    """Stands in for a classifier whose training labels never vary (an SVM needs two)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(len(X), self.value)


def fit_classifier(X: np.ndarray, y: np.ndarray, C: float) -> RBFClassifier | ConstantClassifier:
    """An RBF-SVM on (X, y), or a constant when y holds a single label."""
    labels = np.unique(y)
    if len(labels) == 1:
        return ConstantClassifier(labels[0])
    return RBFClassifier(C=C).fit(X, y)
