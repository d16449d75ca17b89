"""Property tests of the command line's ``--set`` and of configs read back from a store:
whatever text or value arrives, the result is a valid config or one ValueError naming
the setting, never another exception and never an invalid config."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.errors import UserError
from memrnn.experiments.config import TrainConfig, field_types
from memrnn.experiments.registry import experiment_names, get_experiment
from memrnn.runner.config import config_from_mapping, with_overrides


def _smoke_config(name: str) -> TrainConfig:
    experiment = get_experiment(name)
    return config_from_mapping(experiment.config_type, experiment.runs("smoke")[0].config)


CONFIGS = {name: _smoke_config(name) for name in experiment_names()}

TEXTS = st.one_of(
    st.text(max_size=12),
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(["inf", "-inf", "nan", "1e309", "true", "no", "0", "-1", "cuda:0", " "]),
)
VALUES: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(st.integers(0, 9), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(CONFIGS)), st.data())
def test_any_set_gives_a_valid_config_or_one_line_naming_the_setting(
    name: str, data: st.DataObject
) -> None:
    base = CONFIGS[name]
    key = data.draw(st.one_of(st.sampled_from(sorted(field_types(type(base)))), st.text()))
    raw = data.draw(TEXTS)
    try:
        config = with_overrides(base, [f"{key}={raw}"])
    except UserError as error:
        assert str(error).startswith("--set ")
        assert "\n" not in str(error).strip()
        return
    config.validate()
    stored = json.loads(json.dumps(config.to_dict()))  # as the store keeps it
    assert config_from_mapping(type(config), stored) == config


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(CONFIGS)), st.data())
def test_a_stored_config_with_any_value_is_valid_or_a_value_error(
    name: str, data: st.DataObject
) -> None:
    base = CONFIGS[name]
    values = base.to_dict()
    key = data.draw(st.sampled_from(sorted(values)))
    values[key] = data.draw(VALUES)
    try:
        config = config_from_mapping(type(base), values)
    except ValueError as error:
        assert key in str(error) or "min_length" in str(error) or "k_last" in str(error)
        return
    config.validate()
