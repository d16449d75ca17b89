"""The language models' data (Hewitt et al. 2020, Appendix H.1 and Table 2): one
training, development and test set per cell, which every seed of the cell shares."""

from __future__ import annotations

from pathlib import Path

from memrnn.experiments.hewitt2020.config import Hewitt2020Config
from memrnn.io import load_or_make
from memrnn.languages.dyck import (
    DyckSplits,
    length_ranges,
    make_splits,
    sample_splits,
    split_params,
    splits_file_name,
    splits_from_arrays,
    splits_meta,
    splits_to_arrays,
)


def train_lengths(m: int) -> tuple[int, int]:
    """Training (and dev) lengths, end symbol counted: Table 2's 1:84 (1:180) as the
    authors' generator reads it. It refuses to end a string before its first token and
    rejects strings longer than the maximum, so every string holds a bracket pair: 3 to 84
    tokens (3 to 180), not the lone end symbol that a minimum of 1 would allow."""
    return 3, length_ranges(m)[0][1]


def lm_splits(config: Hewitt2020Config, data: Path | None) -> DyckSplits:
    """The splits of ``config``'s cell: seeded by ``data_seed``, whatever the run's seed;
    kept under ``data`` (made in memory when it is None)."""
    sizes = (config.train_tokens, config.dev_tokens, config.test_tokens)
    lengths = train_lengths(config.m)
    if data is not None:
        params = split_params(config.k, config.m, config.data_seed, *sizes, train_lengths=lengths)
        return load_or_make(
            data / "dyck" / splits_file_name(params),
            splits_meta(params),
            lambda: sample_splits(params),
            "Dyck splits",
            to_arrays=splits_to_arrays,
            from_arrays=lambda arrays: splits_from_arrays(arrays, params),
        )
    return make_splits(config.k, config.m, config.data_seed, *sizes, train_lengths=lengths)
