"""trask2016's config: its checks, and the runs of every profile."""

from __future__ import annotations

import dataclasses

import pytest

from memrnn.experiments.config import TrainConfig
from memrnn.experiments.profiles import PROFILE_NAMES, Profile
from memrnn.experiments.trask2016 import VARIANTS, Trask2016, Trask2016Config
from memrnn.runner.train import run


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_runs_cover_every_variant_and_seed(profile: Profile) -> None:
    runs = Trask2016().runs(profile)
    assert len({spec.key for spec in runs}) == len(runs)
    variants = {spec.tags["variant"] for spec in runs}
    assert variants == set(VARIANTS)
    for spec in runs:
        config = Trask2016Config(
            **{k: tuple(v) if isinstance(v, list) else v for k, v in spec.config.items()}
        )
        config.validate()
        variant = VARIANTS[spec.tags["variant"]]
        assert spec.name == f"{spec.tags['variant']}/seed{spec.tags['seed']}"
        assert dataclasses.asdict(variant) == {
            key: getattr(config, key)
            for key in ("push_bias", "pop_bias", "bias_range", "autoencoder")
        }
        assert spec.profile == profile and spec.seed == config.seed


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="min_length: need 1 <= min_length <= max_length"):
        Trask2016Config(min_length=5, max_length=3).validate()
    with pytest.raises(ValueError, match="cell: expected rnn or lstm, got 'gru'"):
        Trask2016Config(cell="gru").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"bias_range: expected a finite number >= 0, got -0\.1"):
        Trask2016Config(bias_range=-0.1).validate()
    with pytest.raises(TypeError, match="config: trask2016 needs a Trask2016Config"):
        run(Trask2016(), TrainConfig())


def test_configs_round_trip_through_json() -> None:
    config = Trask2016Config(seed=3)
    assert Trask2016Config(**config.to_dict()) == config
    assert dataclasses.asdict(config)["lr"] == 0.01
