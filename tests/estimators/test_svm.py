"""The fast RBF-SVM predicts exactly what scikit-learn's SVC predicts."""

from __future__ import annotations

import re

import numpy as np
import pytest

from memrnn.estimators.svm import (
    ConstantClassifier,
    RBFClassifier,
    SharedKernel,
    fit_classifiers,
    rbf_gram,
)


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


def test_gamma_factor_scales_the_automatic_width() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 5))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    classifier = RBFClassifier(C=10.0, gamma_factor=0.1).fit(X, y)
    assert classifier.gamma_ == pytest.approx(0.1 / (5 * X.var()))
    queries = rng.normal(size=(500, 5))
    np.testing.assert_array_equal(classifier.predict(queries), classifier.svc_.predict(queries))


def test_gram_is_the_rbf_kernel() -> None:
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 7))
    literal = np.array([[np.exp(-0.3 * np.sum((a - b) ** 2)) for b in X] for a in X])
    np.testing.assert_allclose(rbf_gram(X, 0.3), literal, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shared_kernel_gives_the_svms_fitted_one_by_one(seed: int) -> None:
    """fit_classifiers (one precomputed kernel) == SVC(kernel="rbf") per target."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 10))
    targets = [
        (X[:, 0] + X[:, 1] ** 2 > 1).astype(int),
        np.digitize(X[:, 2] * X[:, 3], [-0.5, 0.5]) - 1,  # three classes
        np.zeros(400, dtype=int),  # one label: a constant
    ]
    fitted = fit_classifiers(X, targets, C=10.0, gamma_factor=0.5)
    assert isinstance(fitted[2], ConstantClassifier)
    queries = rng.normal(size=(2000, 10))
    for classifier, y in zip(fitted[:2], targets[:2], strict=True):
        assert isinstance(classifier, RBFClassifier)
        direct = RBFClassifier(C=10.0, gamma_factor=0.5).fit(X, y)
        assert classifier.gamma_ == direct.gamma_
        agree = classifier.predict(queries) == direct.svc_.predict(queries)
        assert agree.mean() >= 0.999, agree.mean()
        np.testing.assert_array_equal(classifier.predict(X), direct.svc_.predict(X))


@pytest.mark.parametrize("seed", [0, 1])
def test_shared_kernel_gives_each_classifiers_own_labels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 8))
    targets = [
        (X[:, 0] > 0).astype(int),
        np.digitize(X[:, 1] + X[:, 2] ** 2, [0.0, 1.5]) - 1,
        np.full(300, 7),
    ]
    classifiers = fit_classifiers(X, targets, C=5.0)
    queries = rng.normal(size=(500, 8))
    shared = SharedKernel(classifiers).predict(queries)
    for classifier, labels in zip(classifiers, shared, strict=True):
        np.testing.assert_array_equal(labels, classifier.predict(queries))
    assert (shared[2] == 7).all()


def test_shared_kernel_refuses_different_widths() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    a = RBFClassifier(gamma_factor=1.0).fit(X, y)
    b = RBFClassifier(gamma_factor=0.5).fit(X, y)
    with pytest.raises(ValueError, match="one gamma"):
        SharedKernel([a, b])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"C": float("nan")}, "C: expected a finite number > 0, got nan"),
        ({"C": 0.0}, "C: expected a finite number > 0, got 0.0"),
        ({"C": True}, "C: expected a finite number > 0, got True"),
        ({"gamma_factor": -1.0}, "gamma_factor: expected a finite number > 0, got -1.0"),
        ({"gamma_factor": float("inf")}, "gamma_factor: expected a finite number > 0, got inf"),
    ],
)
def test_bad_settings_are_named_at_fit(params: dict[str, float], message: str) -> None:
    classifier = RBFClassifier(**params)  # stored as given, as scikit-learn asks
    assert classifier.get_params() == {"C": 1.0, "gamma_factor": 1.0} | params
    with pytest.raises(ValueError, match=re.escape(message)):
        classifier.fit(np.eye(2), [0, 1])
