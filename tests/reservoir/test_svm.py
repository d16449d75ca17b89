"""The fast RBF-SVM predicts exactly what scikit-learn's SVC predicts."""

from __future__ import annotations

import numpy as np
import pytest

from memrnn.reservoir.svm import RBFClassifier


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_agrees_with_sklearn_on_random_data(n_classes: int) -> None:
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(300, 6))
    y = rng.integers(0, n_classes, 300) - 1  # labels like the RSM's -1 for "no push"
    classifier = RBFClassifier(C=10.0).fit(X, y)
    queries = rng.normal(size=(1000, 6))
    np.testing.assert_array_equal(classifier.predict(queries), classifier.svc_.predict(queries))
    np.testing.assert_array_equal(classifier.predict(X), classifier.svc_.predict(X))


def test_gamma_is_sklearns_scale() -> None:
    X = np.random.default_rng(0).normal(2.0, 3.0, size=(50, 4))
    classifier = RBFClassifier().fit(X, np.arange(50) % 2)
    assert classifier.gamma_ == pytest.approx(1 / (4 * X.var()))
