"""The settings of one hewitt2020 run, and the ones it refuses."""

from __future__ import annotations

from typing import get_args

import pytest

from memrnn.constructions import KINDS
from memrnn.experiments.hewitt2020 import Hewitt2020Config, Kind


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="part: expected construction or lm, got 'x'"):
        Hewitt2020Config(part="x").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind: expected srnn-onehot, lstm-onehot"):
        Hewitt2020Config(kind="gru").validate()  # type: ignore[arg-type]
    assert get_args(Kind) == KINDS
    with pytest.raises(ValueError, match="k: the LSTM size"):
        Hewitt2020Config(k=1).validate()
    with pytest.raises(ValueError, match="k_last: a sweep"):
        Hewitt2020Config(part="construction", k=5, k_last=3).validate()
    with pytest.raises(ValueError, match="k_last: a sweep"):
        Hewitt2020Config(part="construction", k=2, k_last=3, walk_steps=10).validate()
    with pytest.raises(ValueError, match="data_seed: expected an int >= 0"):
        Hewitt2020Config(data_seed=-1).validate()
    with pytest.raises(ValueError, match="patience: expected an int >= 1"):
        Hewitt2020Config(patience=0).validate()
    with pytest.raises(ValueError, match="clip: the recipe clips no gradient"):
        Hewitt2020Config(clip=1.0).validate()
