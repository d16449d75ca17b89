"""scikit-learn's estimator checks on every estimator of memrnn.estimators, with the
failures ``memrnn.estimators.expected_failed_checks`` lists (and documents) expected.
``xfail_strict`` makes a check that passes unexpectedly a failure too, so that list is
exact."""

from __future__ import annotations

from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

from memrnn.estimators import (
    DeepSequenceModel,
    DeepStackMachine,
    EchoStateNetwork,
    ReservoirMemoryMachine,
    ReservoirStackMachine,
)
from memrnn.estimators.checks import EXPECTED_FAILURES, expected_failed_checks
from memrnn.estimators.svm import RBFClassifier

ESTIMATORS = [
    EchoStateNetwork("ldn", degree=2, theta=4.0),
    EchoStateNetwork("random", 8, leak_rate=0.5, bias=0.1, random_state=0),
    DeepSequenceModel("gru", 4, epochs=5, loss="mse", random_state=0),
    DeepSequenceModel("gru", 4, epochs=5, random_state=0),  # loss="bce"
    ReservoirMemoryMachine("ldn", degree=2),
    ReservoirStackMachine("ldn", degree=2),
    DeepStackMachine(4, epochs=5, random_state=0),
    RBFClassifier(),
]


def test_every_estimator_is_checked() -> None:
    import memrnn.estimators as package

    public = {getattr(package, name) for name in package.__all__} - {expected_failed_checks}
    assert public | {RBFClassifier} == {type(e) for e in ESTIMATORS} == set(EXPECTED_FAILURES)


@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=expected_failed_checks, xfail_strict=True
)
def test_scikit_learn_checks(estimator: BaseEstimator, check: object) -> None:
    check(estimator)  # type: ignore[operator]


def test_the_expected_failures_name_an_estimator() -> None:
    import pytest

    with pytest.raises(TypeError, match="expected one of memrnn's estimators, got str"):
        expected_failed_checks("ridge")  # type: ignore[arg-type]
