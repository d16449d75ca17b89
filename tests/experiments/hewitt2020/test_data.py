"""The splits of a hewitt2020 cell: shared by its seeds, kept on disk once."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from memrnn.experiments.hewitt2020 import (
    Hewitt2020Config,
    lm_splits,
    train_language_model,
    train_lengths,
)

SMALL = {"k": 2, "m": 3, "train_tokens": 300, "dev_tokens": 200, "test_tokens": 400}


def test_every_seed_of_a_cell_shares_its_splits() -> None:
    """Appendix H.1: identical dev and test sets in every setting; the authors' code also
    writes one training file per setting, which all seeds read."""
    runs = [Hewitt2020Config(**SMALL, seed=seed) for seed in range(3)]
    splits = [lm_splits(c, None) for c in runs]
    for name in ("train", "dev", "test"):
        first = getattr(splits[0], name)
        for other in splits[1:]:
            assert np.array_equal(getattr(other, name).tokens, first.tokens)
    larger = lm_splits(dataclasses.replace(runs[0], train_tokens=3_000), None)
    assert np.array_equal(larger.dev.tokens, splits[0].dev.tokens)
    assert np.array_equal(larger.test.tokens, splits[0].test.tokens)
    other_data = lm_splits(dataclasses.replace(runs[0], data_seed=1), None)
    assert not np.array_equal(other_data.dev.tokens, splits[0].dev.tokens)


def test_training_strings_hold_a_bracket_pair() -> None:
    """The authors' generator never ends a string before its first token: no lone end
    symbol among the training and dev strings, whose lengths stay within Table 2's."""
    assert train_lengths(3) == (3, 84) and train_lengths(5) == (3, 180)
    splits = lm_splits(Hewitt2020Config(**{**SMALL, "train_tokens": 3_000}), None)
    for strings in (splits.train, splits.dev):
        assert strings.lengths.min() >= 3 and strings.lengths.max() <= 84
    assert splits.test.lengths.min() >= 85


def test_splits_are_written_once_and_reused(tmp_path: Path) -> None:
    config = Hewitt2020Config(**SMALL, max_epochs=1)
    first, _, _ = train_language_model(config, tmp_path)
    (stored,) = (tmp_path / "dyck").glob("*.npz")
    written = stored.stat().st_mtime_ns
    again, _, _ = train_language_model(config, tmp_path)
    assert again == first and stored.stat().st_mtime_ns == written
    in_memory, _, _ = train_language_model(config, None)
    assert in_memory == first
