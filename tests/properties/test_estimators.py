"""Properties of the scikit-learn estimators of Paassen, Schulz, Hammer (2021) over random
small inputs:

- the echo state network (each reservoir kind), the reservoir memory machine and the GRU
  and Stack-RNN sequence models fit random sequences and predict one finite (T_i, L)
  array per input sequence;
- a NaN or inf anywhere in the inputs or the targets, a sequence of the wrong rank, or
  targets whose lengths do not match raise a ValueError naming the sequence (X[i], Y[i]);
- a bad value of any reservoir setting (NaN, inf, out of range, a bool for a count)
  raises a ValueError naming that setting, whichever reservoir is chosen.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.estimators import DeepSequenceModel, EchoStateNetwork, ReservoirMemoryMachine

CASES = settings(max_examples=30, deadline=None)
FEW = settings(max_examples=25, deadline=None)
value = st.floats(-3.0, 3.0)


@st.composite
def sequences(draw: st.DrawFn) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Inputs (T_i, n) and aligned targets (T_i, L) in [0, 1]."""
    n, width = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    lengths = draw(st.lists(st.integers(1, 6), min_size=1, max_size=3))
    xs = [
        np.array(draw(st.lists(value, min_size=t * n, max_size=t * n))).reshape(t, n)
        for t in lengths
    ]
    ys = [
        np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=t * width,
                               max_size=t * width))).reshape(t, width)
        for t in lengths
    ]  # fmt: skip
    return xs, ys


def _esn(draw: st.DrawFn, n_inputs: int) -> EchoStateNetwork:
    kind = draw(st.sampled_from(["ldn", "crj", "random"]))
    neurons = draw(st.integers(max(4, n_inputs), 12))
    return EchoStateNetwork(kind, neurons, theta=4.0, random_state=draw(st.integers(0, 99)))


@CASES
@given(data=sequences(), draw=st.data())
def test_the_esn_predicts_one_finite_array_per_sequence(
    data: tuple[list[np.ndarray], list[np.ndarray]], draw: st.DataObject
) -> None:
    xs, ys = data
    esn = _esn(draw.draw, xs[0].shape[1]).fit(xs, ys)
    predictions = esn.predict(xs)
    assert [p.shape for p in predictions] == [y.shape for y in ys]
    assert all(np.isfinite(p).all() for p in predictions)


@FEW
@given(data=sequences(), draw=st.data())
def test_the_memory_machine_predicts_one_finite_array_per_sequence(
    data: tuple[list[np.ndarray], list[np.ndarray]], draw: st.DataObject
) -> None:
    xs, ys = data
    rows = draw.draw(st.integers(1, 2))
    addresses = [draw.draw(st.lists(st.integers(0, rows), min_size=len(x), max_size=len(x)))
                 for x in xs]  # fmt: skip
    rmm = ReservoirMemoryMachine("ldn", 4 * xs[0].shape[1], rows=rows, theta=4.0)
    predictions = rmm.fit(xs, ys, addresses=addresses).predict(xs)
    assert [p.shape for p in predictions] == [y.shape for y in ys]
    assert all(np.isfinite(p).all() for p in predictions)


@FEW
@given(data=sequences(), model=st.sampled_from(["gru", "srnn"]), seed=st.integers(0, 99))
def test_the_deep_models_predict_one_finite_array_per_sequence(
    data: tuple[list[np.ndarray], list[np.ndarray]], model: str, seed: int
) -> None:
    xs, ys = data
    deep = DeepSequenceModel(model, 3, epochs=2, stack_width=2, stack_depth=3, random_state=seed)
    predictions = deep.fit(xs, ys).predict(xs)
    assert [p.shape for p in predictions] == [y.shape for y in ys]
    assert all(set(np.unique(p)) <= {0.0, 1.0} for p in predictions)


@CASES
@given(
    data=sequences(),
    which=st.sampled_from(["X", "Y"]),
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
    draw=st.data(),
)
def test_a_non_finite_value_is_named_by_its_sequence(
    data: tuple[list[np.ndarray], list[np.ndarray]], which: str, bad: float, draw: st.DataObject
) -> None:
    xs, ys = data
    arrays = xs if which == "X" else ys
    i = draw.draw(st.integers(0, len(arrays) - 1))
    arrays[i].flat[draw.draw(st.integers(0, arrays[i].size - 1))] = bad
    estimator = draw.draw(
        st.sampled_from([EchoStateNetwork("ldn", 4 * xs[0].shape[1]), DeepSequenceModel(epochs=1)])
    )
    with pytest.raises(ValueError, match=re.escape(f"{which}[{i}]: contains NaN or inf")):
        estimator.fit(xs, ys)


@CASES
@given(data=sequences(), draw=st.data())
def test_a_sequence_of_the_wrong_rank_or_length_is_named(
    data: tuple[list[np.ndarray], list[np.ndarray]], draw: st.DataObject
) -> None:
    xs, ys = data
    i = draw.draw(st.integers(0, len(xs) - 1))
    if draw.draw(st.booleans()):
        xs[i] = xs[i].reshape(-1) if draw.draw(st.booleans()) else xs[i][None]
        message = f"X[{i}]: expected a 2-D"
    else:
        ys[i] = np.vstack([ys[i], ys[i][:1]])
        message = f"Y[{i}]: has {len(ys[i])} time steps but X[{i}] has {len(xs[i])}"
    with pytest.raises(ValueError, match=re.escape(message)):
        EchoStateNetwork("crj", 8).fit(xs, ys)


RESERVOIR_SETTINGS: dict[str, Any] = {
    "n_neurons": st.sampled_from([0, -1, True, 2.5, None]),
    "spectral_radius": st.sampled_from([0.0, -0.5, np.nan, np.inf]),
    "sparsity": st.sampled_from([0.0, 1.5, np.nan]),
    "input_scaling": st.sampled_from([0.0, -1.0, np.inf]),
    "cycle_weight": st.sampled_from([np.nan, np.inf, "0.5"]),
    "jump_weight": st.sampled_from([np.nan, -np.inf, None]),
    "jump_length": st.sampled_from([0, -2, 2.0, False]),
    "input_weight": st.sampled_from([0.0, np.nan]),
    "degree": st.sampled_from([0, True, 1.5]),
    "theta": st.sampled_from([0.0, -1.0, np.nan]),
    "dt": st.sampled_from([0.0, np.inf]),
    "alpha": st.sampled_from([-1.0, np.nan]),
}


@CASES
@given(
    kind=st.sampled_from(["ldn", "crj", "random"]),
    name=st.sampled_from(sorted(RESERVOIR_SETTINGS)),
    draw=st.data(),
)
def test_a_bad_reservoir_setting_is_named_whichever_reservoir(
    kind: str, name: str, draw: st.DataObject
) -> None:
    bad = draw.draw(RESERVOIR_SETTINGS[name])
    params: dict[str, Any] = {"n_neurons": 8, name: bad}
    esn = EchoStateNetwork(kind, **params)
    with pytest.raises(ValueError, match=rf"^{name}: expected"):
        esn.fit([np.zeros((3, 1))], [np.zeros((3, 1))])
