"""What scikit-learn's ``check_estimator`` can and cannot show of memrnn's estimators.

The checks fit on a 2-D array X (n_samples, n_features) and a target y. memrnn's
estimators read X as sequences: a 2-D array is one series whose rows are time steps, a
list (or 3-D array) is many series. Their tags say so (``input_tags.three_d_array``, a
target that is required, sequence outputs of any width), and the checks that do not
apply are of three kinds, which :func:`expected_failed_checks` lists with their reason:

- **order**: the checks that shuffle or split the rows of X assume each row's output
  independent of the others; a recurrent estimator's output at a step depends on every
  step before it (``EchoStateNetwork``, ``DeepSequenceModel``);
- **nested lists**: ``check_regressors_train`` also fits on ``X.tolist()``, which memrnn
  reads as a list of 1-D sequences (refused), not as one series;
- **teachers**: the memory and stack machines learn from a teacher (memory addresses,
  stack actions) that a check's ``fit(X, y)`` cannot give, so every check that fits
  fails for them; their checks of parameters, cloning, tags and unfitted state pass.

``check_estimator(estimator, expected_failed_checks=expected_failed_checks(estimator))``
then passes for every estimator as the test suite builds them (it runs it so, failing on
a check that passes unexpectedly too). A ``DeepSequenceModel`` with its default
``loss="bce"`` takes targets in [0, 1] only and refuses the checks' real-valued ones:
for it the list also holds the checks that fit on such targets, so it passes too.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from sklearn.base import BaseEstimator

from memrnn.estimators.deep import DeepSequenceModel
from memrnn.estimators.dsm import DeepStackMachine
from memrnn.estimators.esn import EchoStateNetwork
from memrnn.estimators.rmm import ReservoirMemoryMachine
from memrnn.estimators.rsm import ReservoirStackMachine
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
# The checks that fit, which fail for an estimator whose fit needs a teacher.
FITTED_CHECKS = (
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
)
REGRESSOR_FITTED_CHECKS = (
    "check_regressor_data_not_an_array",
    "check_regressor_multioutput",
    "check_regressors_int",
    "check_regressors_no_decision_function",
    "check_regressors_train",
    "check_supervised_y_2d",
    "check_supervised_y_no_nan",
)
_BCE = (
    "loss='bce' takes targets in [0, 1] only, and the check's are real-valued (the checks "
    "pass with loss='mse')"
)
# With its default loss a DeepSequenceModel refuses the real-valued targets of these.
BCE_FAILURES = {
    **dict.fromkeys(
        (
            "check_dict_unchanged",
            "check_dont_overwrite_parameters",
            "check_dtype_object",
            "check_estimators_dtypes",
            "check_estimators_fit_returns_self",
            "check_estimators_overwrite_params",
            "check_f_contiguous_array_estimator",
            "check_fit2d_1feature",
            "check_fit2d_predict1d",
            "check_fit_check_is_fitted",
            "check_fit_idempotent",
            "check_fit_score_takes_y",
            "check_n_features_in",
            "check_n_features_in_after_fitting",
            "check_positive_only_tag_during_fit",
            "check_readonly_memmap_input",
            "check_regressor_data_not_an_array",
            "check_regressor_multioutput",
            "check_regressors_int",
            "check_regressors_no_decision_function",
            "check_supervised_y_2d",
        ),
        _BCE,
    ),
    **SEQUENCE_REGRESSOR_FAILURES,
}
_ADDRESSES = (
    "fit needs the teacher's memory addresses (Paassen and Schulz 2020), a keyword "
    "argument that the check's fit(X, y) does not give"
)
_TEACHERS = (
    "fit needs stack teachers as y and the nonterminal codes (Paassen, Schulz, Hammer "
    "2021, Algorithm 4), which the check's fit(X, y) does not give"
)
EXPECTED_FAILURES: Mapping[type[BaseEstimator], Mapping[str, str]] = MappingProxyType(
    {
        EchoStateNetwork: SEQUENCE_REGRESSOR_FAILURES,
        DeepSequenceModel: SEQUENCE_REGRESSOR_FAILURES,
        ReservoirMemoryMachine: dict.fromkeys(FITTED_CHECKS + REGRESSOR_FITTED_CHECKS, _ADDRESSES),
        ReservoirStackMachine: dict.fromkeys(FITTED_CHECKS, _TEACHERS),
        DeepStackMachine: dict.fromkeys(FITTED_CHECKS, _TEACHERS),
        RBFClassifier: {},
    }
)


def expected_failed_checks(estimator: BaseEstimator) -> dict[str, str]:
    """The scikit-learn checks ``estimator`` is expected to fail, each with its reason,
    in the form ``check_estimator``'s ``expected_failed_checks`` takes. They are of
    four kinds:

    - the checks that shuffle or split the rows of X, for ``EchoStateNetwork`` and
      ``DeepSequenceModel``: a 2-D X is one series whose rows are time steps, and a
      step's output depends on every step before it;
    - ``check_regressors_train``, which also fits on ``X.tolist()``: memrnn reads a
      nested list as a list of 1-D sequences (refused), not as one series;
    - for a ``DeepSequenceModel`` with ``loss="bce"`` (its default), the checks that fit
      on real-valued targets, which that loss refuses;
    - for ``ReservoirMemoryMachine``, ``ReservoirStackMachine`` and ``DeepStackMachine``,
      every check that fits: they learn from a teacher (memory addresses, stack actions)
      that ``fit(X, y)`` cannot give. Their checks of parameters, cloning, tags and
      unfitted state pass.

    >>> from memrnn.estimators import EchoStateNetwork
    >>> sorted(expected_failed_checks(EchoStateNetwork()))[0]
    'check_methods_sample_order_invariance'

    Raises:
        TypeError: ``estimator`` is not one of memrnn's estimators.
    """
    if type(estimator) is DeepSequenceModel and getattr(estimator, "loss", None) == "bce":
        return dict(BCE_FAILURES)
    for kind, failures in EXPECTED_FAILURES.items():
        if type(estimator) is kind:
            return dict(failures)
    raise TypeError(
        f"estimator: expected one of memrnn's estimators, got {type(estimator).__name__}"
    )
