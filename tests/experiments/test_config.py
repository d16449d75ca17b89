"""TrainConfig: fields with fixed choices are checked by name, in every subclass."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from memrnn.experiments.config import TrainConfig, choices, describe_choices, field_types
from memrnn.experiments.registry import experiment_names, get_experiment


@dataclass(frozen=True)
class _Shaped(TrainConfig):
    shape: Literal["round", "square"] = "round"
    size: int = 1


def test_choices_of_a_literal_and_of_other_types() -> None:
    types = field_types(_Shaped)
    assert choices(types["shape"]) == ("round", "square")
    assert choices(types["optimizer"]) == ("adam", "adamw", "rmsprop", "sgd")
    assert choices(types["size"]) is None and choices(types["monitor"]) is None
    assert describe_choices(("a",)) == "a" and describe_choices(("a", "b", "c")) == "a, b or c"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"shape": "oval"}, "shape: expected round or square, got 'oval'"),
        ({"optimizer": "lbfgs"}, "optimizer: expected adam, adamw, rmsprop or sgd, got 'lbfgs'"),
        ({"monitor_mode": "up"}, "monitor_mode: expected min or max, got 'up'"),
        ({"steps": 0}, "steps: expected an int >= 1, got 0"),
    ],
)
def test_validate_names_the_field(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as error:
        _Shaped(**settings).validate()
    assert str(error.value) == message


def test_a_valid_config_passes() -> None:
    _Shaped(shape="square", optimizer="sgd", monitor_mode="max").validate()


def test_field_types_are_resolved_once_per_class_and_read_only() -> None:
    types = field_types(_Shaped)
    assert field_types(_Shaped) is types  # a profile validates thousands of configs
    assert types["size"] is int and set(field_types(TrainConfig)) < set(types)
    with pytest.raises(TypeError):
        types["size"] = float  # type: ignore[index]


@dataclass(frozen=True)
class _Listed(TrainConfig):
    sizes: list[int] = field(default_factory=lambda: [1, 2])


def test_to_dict_equals_asdict_and_copies_containers() -> None:
    shaped = _Shaped(shape="square", size=3, lr=0.5)
    assert shaped.to_dict() == dataclasses.asdict(shaped)
    assert list(shaped.to_dict()) == [f.name for f in dataclasses.fields(shaped)]
    listed = _Listed()
    values = listed.to_dict()
    assert values == dataclasses.asdict(listed) and values["sizes"] is not listed.sizes


@pytest.mark.parametrize("name", experiment_names())
def test_every_experiments_run_configs_are_their_asdict(name: str) -> None:
    experiment = get_experiment(name)
    for spec in experiment.runs("smoke") + experiment.runs("quick"):
        config = experiment.config_type(**spec.config)
        assert spec.config == dataclasses.asdict(config) == config.to_dict()
