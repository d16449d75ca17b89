"""The scale paragraph of each profile: the paper's grid counted and its settings named,
and the quick profile's departures from the paper."""

from __future__ import annotations

from memrnn.experiments.grefenstette2015 import Grefenstette2015


def test_the_paper_scale_counts_the_grid_and_names_the_papers_settings() -> None:
    scale = Grefenstette2015().scale("paper")
    assert scale.startswith("the paper's protocol: Deep LSTMs of 1, 2, 4 and 8 layers")
    assert "hidden 256 and 512" in scale and "5e-03, 1e-03, 5e-04, 1e-04 and 5e-05" in scale
    assert ": 350 runs;" in scale and "100,000 steps per run" in scale


def test_the_quick_scale_names_what_is_not_in_the_paper() -> None:
    scale = Grefenstette2015().scale("quick")
    assert scale.startswith("hidden 64, embeddings 32, memory width 64, 16 symbols")
    assert "8000 steps" in scale and "by a curriculum from 4" in scale
    assert "not in the paper: AdamW weight decay 0.1" in scale
    assert "the ITG tasks have" in scale and "(SVO->SOV) and" in scale
    assert "lengths scored every 100 steps and the training and test lengths every 500" in scale
