"""The splits of a hewitt2020 cell: shared by its seeds, kept on disk once, refused with the
file's name when it is damaged."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from memrnn.errors import UserError
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


def _stored(folder: Path, config: Hewitt2020Config) -> Path:
    lm_splits(config, folder)
    (stored,) = (folder / "dyck").glob("*.npz")
    return stored


def test_splits_that_are_not_dyck_words_are_an_error_naming_the_file(tmp_path: Path) -> None:
    """Ids in range that do not nest: refused when read, not an IndexError in training."""
    config = Hewitt2020Config(**SMALL, max_epochs=1)
    stored = _stored(tmp_path, config)
    with np.load(stored) as data:
        arrays = {name: data[name] for name in data.files}
    closes = arrays["train_tokens"] >= config.k  # ")]" for "([": 2 closes 0, 3 closes 1
    arrays["train_tokens"] = np.where(closes, arrays["train_tokens"], 2)  # all closes but ends
    np.savez_compressed(stored, **arrays)
    with pytest.raises(UserError, match=rf"{stored.name}: damaged Dyck splits \(train: string 0"):
        train_language_model(config, tmp_path)


@pytest.mark.parametrize("damage", ["zero bytes", "garbled"])
def test_an_unreadable_splits_file_is_an_error_naming_it(tmp_path: Path, damage: str) -> None:
    config = Hewitt2020Config(**SMALL, max_epochs=1)
    stored = _stored(tmp_path, config)
    data = stored.read_bytes()
    middle = len(data) // 2
    garbled = data[:middle] + bytes(b ^ 0xFF for b in data[middle : middle + 64])
    stored.write_bytes(b"" if damage == "zero bytes" else garbled + data[middle + 64 :])
    with pytest.raises(UserError, match=rf"{stored.name}: cannot read the Dyck splits"):
        lm_splits(config, tmp_path)
