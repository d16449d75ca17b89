"""--set parsing and config validation name the offending setting."""

from __future__ import annotations

import pytest

from memrnn.errors import UserError
from memrnn.runner.config import config_from_mapping, with_overrides
from tests.runner.toy import ToyConfig


def test_overrides_parse_each_type() -> None:
    config = with_overrides(ToyConfig(), ["steps=12", "lr=0.5", "optimizer=sgd", "noise=0"])
    assert (config.steps, config.lr, config.optimizer, config.noise) == (12, 0.5, "sgd", 0.0)
    assert isinstance(config.steps, int) and isinstance(config.lr, float)


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("stepz=3", "--set stepz: unknown setting; the settings are: batch_size"),
        ("steps", "--set 'steps': expected key=value"),
        ("steps=many", "--set steps=many: not a valid int"),
        ("lr=fast", "--set lr=fast: not a valid float"),
        ("steps=0", "--set steps: expected an int >= 1, got 0"),
        ("optimizer=lbfgs", "--set optimizer=lbfgs: expected adam, adamw, rmsprop or sgd"),
        ("monitor_mode=up", "--set monitor_mode=up: expected min or max"),
        ("lr=-1", "--set lr: expected a finite number > 0, got -1.0"),
        ("lr=inf", "--set lr: expected a finite number, got inf"),
        ("clip=nan", "--set clip: expected a finite number, got nan"),
        ("seed=-1", "--set seed: expected an int >= 0, got -1"),
        ("device=cpufoo", "--set device: expected auto, cpu, cuda or cuda:N"),
        ("weight_decay=-0.1", "--set weight_decay: expected a finite number >= 0, got -0.1"),
    ],
)
def test_bad_overrides_name_the_setting(assignment: str, message: str) -> None:
    with pytest.raises(UserError) as error:
        with_overrides(ToyConfig(), [assignment])
    assert str(error.value).startswith(message)


def test_config_from_mapping_rejects_unknown_keys() -> None:
    assert config_from_mapping(ToyConfig, {"steps": 3}).steps == 3
    with pytest.raises(UserError, match="ToyConfig: unknown settings colour"):
        config_from_mapping(ToyConfig, {"colour": "red"})
