"""scikit-learn's estimator checks on every estimator of memrnn.estimators.

The checks fit on a 2-D array X (n_samples, n_features) and a target y. The sequence
estimators read such an X as one series whose rows are time steps, so the checks that
assume rows independent of each other are expected to fail, with the reasons below. The
memory and stack machines learn from teachers (addresses, stack actions) that a check's
``fit(X, y)`` cannot give: every check that fits is expected to fail for them, and the
checks of their parameters, cloning, tags and unfitted state pass. ``xfail_strict``
makes a check that passes unexpectedly a failure too, so this list is exact.
"""

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
from memrnn.estimators.svm import RBFClassifier

_IN_ORDER = (
    "the rows of a 2-D X are the time steps of one series: each step's output depends on "
    "the steps before it"
)
SEQUENCE_REGRESSOR_FAILURES = {
    "check_methods_sample_order_invariance": _IN_ORDER,
    "check_methods_subset_invariance": _IN_ORDER,
    "check_regressors_train": (
        "it also fits on X.tolist(), a nested list, which memrnn reads as a list of "
        "sequences (each row a 1-D sequence, refused), never as one series"
    ),
}

_FITTED_CHECKS = [
    "check_complex_data",
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_dtype_object",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
    "check_estimator_sparse_tag",
    "check_estimators_dtypes",
    "check_estimators_empty_data_messages",
    "check_estimators_fit_returns_self",
    "check_estimators_nan_inf",
    "check_estimators_overwrite_params",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_fit1d",
    "check_fit2d_1feature",
    "check_fit2d_1sample",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_pipeline_consistency",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
    "check_requires_y_none",
]
_REGRESSOR_FITTED_CHECKS = [
    "check_regressor_data_not_an_array",
    "check_regressor_multioutput",
    "check_regressors_int",
    "check_regressors_no_decision_function",
    "check_regressors_train",
    "check_supervised_y_2d",
    "check_supervised_y_no_nan",
]
_ADDRESSES = (
    "fit needs the teacher's memory addresses (Paassen and Schulz 2020), a keyword "
    "argument that the check's fit(X, y) does not give"
)
_TEACHERS = (
    "fit needs stack teachers as y and the nonterminal codes (Paassen, Schulz, Hammer "
    "2021, Algorithm 4), which the check's fit(X, y) does not give"
)
EXPECTED_FAILURES: dict[type, dict[str, str]] = {
    EchoStateNetwork: SEQUENCE_REGRESSOR_FAILURES,
    DeepSequenceModel: SEQUENCE_REGRESSOR_FAILURES,
    ReservoirMemoryMachine: dict.fromkeys(_FITTED_CHECKS + _REGRESSOR_FITTED_CHECKS, _ADDRESSES),
    ReservoirStackMachine: dict.fromkeys(_FITTED_CHECKS, _TEACHERS),
    DeepStackMachine: dict.fromkeys(_FITTED_CHECKS, _TEACHERS),
    RBFClassifier: {},
}

ESTIMATORS = [
    EchoStateNetwork("ldn", degree=2, theta=4.0),
    EchoStateNetwork("random", 8, leak_rate=0.5, bias=0.1, random_state=0),
    DeepSequenceModel("gru", 4, epochs=5, loss="mse", random_state=0),
    ReservoirMemoryMachine("ldn", degree=2),
    ReservoirStackMachine("ldn", degree=2),
    DeepStackMachine(4, epochs=5, random_state=0),
    RBFClassifier(),
]


def expected_failures(estimator: BaseEstimator) -> dict[str, str]:
    """The checks ``estimator`` is expected to fail, each with its reason."""
    return EXPECTED_FAILURES[type(estimator)]


def test_every_estimator_is_checked() -> None:
    import memrnn.estimators as package

    public = {getattr(package, name) for name in package.__all__}
    assert public | {RBFClassifier} == {type(e) for e in ESTIMATORS} == set(EXPECTED_FAILURES)


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures, xfail_strict=True)
def test_scikit_learn_checks(estimator: BaseEstimator, check: object) -> None:
    check(estimator)  # type: ignore[operator]
