"""A construction's size is known before it is built: the hidden units each theorem
states, the weights they take, and a refusal, naming k, m, the size and the limit, of
a construction too large for memory, before anything is allocated."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from memrnn.constructions import (
    KINDS,
    MAX_WEIGHTS,
    GeneratorLSTM,
    GeneratorRNN,
    build,
    check_size,
    theorem_units,
    verify,
    weight_count,
)
from memrnn.constructions.encodings import log_bits, logarithmic, onehot
from memrnn.experiments.hewitt2020.profiles import EFFICIENT, WALKED, sweep_runs


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("k", "m"), [(2, 1), (3, 2), (5, 3)])
def test_the_weights_counted_are_the_weights_built(kind: str, k: int, m: int) -> None:
    model = build(kind, k, m)
    assert model.hidden_size == theorem_units(kind, k, m)
    assert sum(b.numel() for b in model.buffers()) == weight_count(kind, k, m)


def test_srnn_dfa_at_k100_m5_is_refused_by_arithmetic() -> None:
    """Theorem 1's automaton for Dyck-(100, 5) has 2 (100 + ... + 100^5) units: building
    it enumerated 10^10 stacks and tried to allocate 10^20 weights."""
    start = time.perf_counter()
    message = (
        "k, m: srnn-dfa for Dyck-(k=100, m=5) needs 20,202,020,200 hidden units and "
        "4.08e+20 float32 weights, over the limit max_weights = 8,589,934,592"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        build("srnn-dfa", 100, 5)
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize(
    ("kind", "k", "m", "units"),
    [
        ("srnn-onehot", 10**6, 1, "2,000,000 hidden units"),
        ("lstm-onehot", 3 * 10**4, 2, "60,000 hidden units"),
        ("lstm-log", 10**12, 1, "119 hidden units"),  # the vocabulary grows the weights
        ("srnn-dfa", 2, 10**6, "more than 2^1000001 hidden units"),
        ("srnn-dfa", 10**9, 10**9, "more than 2^"),
    ],
)
def test_fast_growing_constructions_are_refused(kind: str, k: int, m: int, units: str) -> None:
    with pytest.raises(ValueError, match=rf"k, m: {kind} for Dyck-\(k={k}, m={m}\) needs .*"):
        check_size(kind, k, m)
    with pytest.raises(ValueError, match=re.escape(units)):
        build(kind, k, m)


def test_the_limit_is_an_argument() -> None:
    needed = weight_count("srnn-onehot", 3, 2)
    assert build("srnn-onehot", 3, 2, max_weights=needed).hidden_size == 12
    with pytest.raises(ValueError, match=f"over the limit max_weights = {needed - 1:,}"):
        build("srnn-onehot", 3, 2, max_weights=needed - 1)
    with pytest.raises(ValueError, match="max_weights: expected an int >= 1, got 0"):
        build("srnn-onehot", 3, 2, max_weights=0)
    with pytest.raises(ValueError, match=r"max_weights: expected an int >= 1, got 1000000000\.0"):
        check_size("srnn-onehot", 3, 2, 1e9)  # type: ignore[arg-type]


def test_every_language_of_the_profiles_fits_the_default_limit() -> None:
    """The sweeps (their largest k per m) and the walked languages of hewitt2020's quick
    and paper profiles all build under MAX_WEIGHTS."""
    largest = 0
    for quick in (True, False):
        for kind in (*EFFICIENT, "srnn-dfa"):
            for m, _, k_last in sweep_runs(kind, quick):
                check_size(kind, k_last, m)
                largest = max(largest, weight_count(kind, k_last, m))
    for kind in EFFICIENT:
        for k, m in WALKED:
            check_size(kind, k, m)
    assert 4e9 < largest <= MAX_WEIGHTS  # one-hot codes at k = 20000, m = 1


@pytest.mark.parametrize(
    ("kind", "k", "m", "message"),
    [
        ("srnn-log", 1, 2, "k: the logarithmic code needs k >= 2, got 1"),
        ("lstm-log", 1, 3, "k: the logarithmic code needs k >= 2, got 1"),
        ("srnn-onehot", 0, 2, "k: expected an int >= 1, got 0"),
        ("srnn-dfa", 2, True, "m: expected an int >= 1, got True"),
        ("lstm-onehot", 2.0, 2, "k: expected an int >= 1, got 2.0"),
    ],
)
def test_theorem_units_refuses_languages_without_a_construction(
    kind: str, k: object, m: object, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        theorem_units(kind, k, m)  # type: ignore[arg-type]


def test_the_codes_refuse_bad_bracket_counts() -> None:
    with pytest.raises(ValueError, match="k: expected an int >= 1, got 0"):
        onehot(0)
    with pytest.raises(ValueError, match="k: expected an int >= 1, got -3"):
        logarithmic(-3)
    with pytest.raises(ValueError, match="k: expected an int >= 2, got 1"):
        log_bits(1)


def test_generators_check_the_shapes_of_their_weights() -> None:
    n, vocab = 4, 5  # k = 2
    good = {
        "W": np.zeros((n, n)),
        "U": np.zeros((n, vocab)),
        "b": np.zeros(n),
        "V": np.zeros((vocab, n)),
        "c": np.zeros(vocab),
    }
    assert GeneratorRNN(**good, k=2, m=1, kind="srnn-onehot").hidden_size == n
    with pytest.raises(ValueError, match=re.escape("U: expected shape (4, 5) with n >= 1")):
        GeneratorRNN(**(good | {"U": np.zeros((n, 7))}), k=2, m=1, kind="srnn-onehot")
    with pytest.raises(ValueError, match=re.escape("U: expected shape (4, 7) with n >= 1")):
        GeneratorRNN(**good, k=3, m=1, kind="srnn-onehot")
    with pytest.raises(ValueError, match="m: expected an int >= 1, got 0"):
        GeneratorRNN(**good, k=2, m=0, kind="srnn-onehot")
    weights = {name: b.numpy() for name, b in build("lstm-onehot", 2, 2).named_buffers()}
    assert GeneratorLSTM(weights, k=2, m=2, kind="lstm-onehot").hidden_size == 4
    with pytest.raises(ValueError, match=re.escape("weights: expected the arrays ['U_c',")):
        GeneratorLSTM({"W_i": weights["W_i"]}, k=2, m=2, kind="lstm-onehot")
    with pytest.raises(ValueError, match=re.escape("weights: expected the arrays")):
        GeneratorLSTM([1, 2], k=2, m=2, kind="lstm-onehot")  # type: ignore[arg-type]


def test_verify_names_a_model_that_is_no_construction() -> None:
    with pytest.raises(TypeError, match="model: expected a GeneratorRNN or GeneratorLSTM"):
        verify(object())  # type: ignore[arg-type]
