"""The nine models of Paassen et al. (2021), section 4, fitted and run on one benchmark:
ESNs and reservoir stack machines (RSMs) over a random, CRJ or LDN reservoir, and the
deep baselines GRU, stack RNN (SRNN) and deep stack machine (DSM).

A model's plain output is what the paper scores: the ESN's linear regression, the deep
models' sigmoid (their raw output on the copy tasks) and the RSM's c_out (an SVM's 0/1
class on latch and the languages, ridge regression on the copy tasks; section 3.2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memrnn.estimators import (
    DeepSequenceModel,
    DeepStackMachine,
    EchoStateNetwork,
    ReservoirStackMachine,
)
from memrnn.experiments.paassen2021.config import (
    DEEP_MODELS,
    RESERVOIRS,
    Paassen2021Config,
    neurons_for,
)
from memrnn.tasks.rsm_benchmarks import Dataset, scored_rows


def fit_predict(
    config: Paassen2021Config, params: dict[str, float], train: Dataset, test: Dataset, seed: int
) -> list[np.ndarray]:
    """Fit ``config.model`` on ``train``; its plain outputs on ``test`` (no threshold),
    aligned with the targets."""
    # a stack machine that has not learned when to stop would loop to max_actions at
    # every step; twice the teacher's longest run of actions is a generous bound
    max_actions = 2 * max(len(a) for t in train.teachers for a in t.actions) + 2
    if config.model in DEEP_MODELS:
        return _fit_predict_deep(config, train, test, seed, max_actions)
    return _fit_predict_reservoir(config, params, train, test, seed, max_actions)


def _fit_predict_deep(
    config: Paassen2021Config, train: Dataset, test: Dataset, seed: int, max_actions: int
) -> list[np.ndarray]:
    """The GRU, SRNN or DSM, trained with the paper's Adam for ``config.steps`` epochs."""
    neurons = neurons_for(config)
    deep: dict[str, Any] = dict(
        epochs=config.steps, lr=config.lr, weight_decay=config.weight_decay, random_state=seed
    )
    kind = "bce" if train.binary else "mse"
    if config.model == "DSM":
        dsm = DeepStackMachine(neurons, output=kind, max_actions=max_actions, **deep)
        dsm.fit(train.inputs, train.teachers, nonterminals=train.nonterminals)
        return [scored_rows(config.task, y) for y in dsm.predict_values(test.inputs)]
    model = DeepSequenceModel(config.model.lower(), neurons, loss=kind, **deep)
    return model.fit(train.inputs, train.targets).predict_values(test.inputs)


def _fit_predict_reservoir(
    config: Paassen2021Config,
    params: dict[str, float],
    train: Dataset,
    test: Dataset,
    seed: int,
    max_actions: int,
) -> list[np.ndarray]:
    """An ESN or RSM ("rand-ESN", "LDN-RSM", ...) with the hyperparameters ``params``."""
    neurons = neurons_for(config)
    prefix, family = config.model.split("-")
    reservoir: dict[str, Any] = dict(
        spectral_radius=params["spectral_radius"],
        sparsity=params["sparsity"],
        input_scaling=params["input_scaling"],
        cycle_weight=params["cycle_weight"],
        jump_weight=params["jump_weight"],
        jump_length=int(params["jump_length"]),
        input_weight=params["input_weight"],
        theta=params["theta"],
        random_state=seed,
    )
    if family == "ESN":
        esn = EchoStateNetwork(RESERVOIRS[prefix], neurons, alpha=params["alpha"], **reservoir)
        return esn.fit(train.inputs, train.targets).predict(test.inputs)
    rsm = ReservoirStackMachine(
        RESERVOIRS[prefix],
        neurons,
        C=params["C"],
        gamma_factor=params["gamma_factor"],
        output="svm" if train.binary else "ridge",
        alpha=params["alpha"],
        max_actions=max_actions,
        **reservoir,
    )
    rsm.fit(train.inputs, train.teachers, nonterminals=train.nonterminals)
    return [scored_rows(config.task, y) for y in rsm.predict(test.inputs)]
