"""The reservoir memory machine (Algorithm 3): write, recall, and learn to recall."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from memrnn.estimators.esn import EchoStateNetwork
from memrnn.estimators.rmm import ReservoirMemoryMachine, memory_states
from memrnn.reservoir import random_reservoir


def test_first_visit_writes_later_visits_recall() -> None:
    reservoir = random_reservoir(2, 6, random_state=0)
    x = np.random.default_rng(1).normal(size=(6, 2))
    states = memory_states(reservoir, x, [0, 1, 0, 0, 1, 0], rows=1)
    plain = reservoir.states(x)
    np.testing.assert_allclose(states[:4], plain[:4])  # no recall yet: an ESN
    np.testing.assert_allclose(states[4], states[1])  # recall of what step 1 wrote
    np.testing.assert_allclose(states[5], reservoir.step(states[1], x[5]))  # continues from it
    with pytest.raises(ValueError, match=r"addresses: 2 at step 0 is outside 0 \.\. 1"):
        memory_states(reservoir, x, [2, 0, 0, 0, 0, 0], rows=1)


def _recall_task(rng: np.random.Generator, n: int, lo: int, hi: int) -> tuple[list, list, list]:
    """Output at the final marker the sign seen at step 0; noise in between.

    Channels: the signal (+-1 at step 0, noise after), and a marker that is 1 only at the
    last step. Teacher: write address 1 at step 0, recall it at the marker.
    """
    xs, ys, addresses = [], [], []
    for _ in range(n):
        steps = int(rng.integers(lo, hi + 1))
        x = np.zeros((steps, 2))
        sign = rng.choice([-1.0, 1.0])
        x[0, 0] = sign
        x[1:, 0] = rng.uniform(-1, 1, steps - 1)
        x[-1, 1] = 1.0
        y = np.zeros((steps, 1))
        y[-1, 0] = sign
        a = [1] + [0] * (steps - 2) + [1]
        xs.append(x)
        ys.append(y)
        addresses.append(a)
    return xs, ys, addresses


def test_recalls_what_an_esn_forgets() -> None:
    rng = np.random.default_rng(0)
    train = _recall_task(rng, 60, 20, 30)
    test = _recall_task(rng, 30, 40, 60)
    params = {"reservoir": "random", "n_neurons": 32, "spectral_radius": 0.5, "random_state": 2}
    rmm = ReservoirMemoryMachine(**params, rows=1, C=10.0, alpha=1e-3)
    assert rmm.fit(train[0], train[1], addresses=train[2]) is rmm
    rmm_final = np.array([p[-1, 0] for p in rmm.predict(test[0])])
    esn = EchoStateNetwork(**params, alpha=1e-3).fit(train[0], train[1])
    esn_final = np.array([p[-1, 0] for p in esn.predict(test[0])])
    want = np.array([y[-1, 0] for y in test[1]])
    assert np.all(np.sign(rmm_final) == want)
    assert np.mean(np.sign(esn_final) == want) < 0.8  # the echo of step 0 has faded


def test_estimator_contract() -> None:
    rmm = ReservoirMemoryMachine("random", 8, rows=2, random_state=0)
    assert clone(rmm).get_params() == rmm.get_params()
    with pytest.raises(NotFittedError):
        rmm.predict([np.zeros((3, 2))])
    with pytest.raises(ValueError, match="sequence 0: X has 3 steps, Y 3, addresses 2"):
        rmm.fit([np.zeros((3, 2))], [np.zeros((3, 1))], addresses=[[0, 0]])


@pytest.mark.parametrize(
    ("addresses", "message"),
    [
        (None, "addresses: expected a list of address sequences, one per sequence of X, got"),
        ([[0, 1.0, 0]], "addresses[0]: expected a sequence of int addresses, got [0, 1.0, 0]"),
        ([[0, 1.5, 0]], "addresses[0]: expected a sequence of int addresses"),
        ([[[0], [1], [0]]], "addresses[0]: expected a sequence of int addresses"),
        ([[0, 3, 0]], "addresses[0]: 3 at step 1 is outside 0 .. 2"),
        ([[0, -1, 0]], "addresses[0]: -1 at step 1 is outside 0 .. 2"),
        ([(0, 1, 0), "abc"], "Y and addresses: need one per sequence of X (1), got 1 and 2"),
    ],
)
def test_bad_addresses_are_named(addresses: object, message: str) -> None:
    """A float address was truncated without a word; None gave "object of type 'NoneType'
    has no len()"."""
    rmm = ReservoirMemoryMachine("random", 8, rows=2, random_state=0)
    with pytest.raises(ValueError, match=re.escape(message)):
        rmm.fit([np.zeros((3, 2))], [np.zeros((3, 1))], addresses=addresses)  # type: ignore[arg-type]
