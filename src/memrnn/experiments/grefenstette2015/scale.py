"""What each profile's runs are, compared with the paper's, for the top of the report."""

from __future__ import annotations

from collections.abc import Sequence

from memrnn.experiments.base import Profile
from memrnn.experiments.grefenstette2015.config import Grefenstette2015Config
from memrnn.experiments.grefenstette2015.paper import (
    PAPER_DEPTHS,
    PAPER_HIDDEN,
    PAPER_LRS,
    PAPER_SETTINGS,
)
from memrnn.experiments.grefenstette2015.profiles import PROFILES, QUICK_SETTINGS, SMOKE_SETTINGS
from memrnn.languages.grammars import GENDERLESS_TO_GENDERED, SVO_TO_SOV


def describe(profile: Profile) -> str:
    """One paragraph on the profile's runs: their sizes, settings and number, and where
    they depart from the paper."""
    if profile == "paper":
        return _paper()
    if profile == "smoke":
        c = Grefenstette2015Config(**SMOKE_SETTINGS)
        return (
            "a smoke run, which checks in seconds that every run trains, is scored and "
            f"is reported: {_sizes(c)}, {c.eval_size} sequences per score, reversal and "
            "copy only, with the quick profile's settings per model (both DeQue starts)"
        )
    c = Grefenstette2015Config(**QUICK_SETTINGS)
    return (
        f"{_sizes(c)}, a 1-layer Deep LSTM, one seed, the curriculum's lengths scored "
        f"every {c.eval_every} steps and the training and test lengths every "
        f"{c.score_every} and at the end; not in "
        "the paper: AdamW weight decay 0.1 for the Stack and DeQue, gate noise 1.0 for "
        "the Queue and DeQue once the curriculum is at its longest, and two DeQue starts "
        "(top end open, push bias 1, bottom closed, -2; or both ends alike with gate "
        "noise 2.0), each cell reporting the one with the better training accuracy; "
        f"{c.eval_size} sequences per score (the paper: hidden 256/512, 128 symbols, "
        "RMSProp, train 8-64, test 65-128, 1000 sequences). Unlike the paper's Appendix "
        f"C, Table 1 (1/33 and 1/25 per word pair), the ITG tasks have {_pairs()} word "
        "pairs per terminal class, for about 128 source words"
    )


def _paper() -> str:
    """The paper profile: the paper's grid and settings, and what the paper leaves open."""
    p = Grefenstette2015Config(**PAPER_SETTINGS)
    return (
        f"the paper's protocol: Deep LSTMs of {_listed(PAPER_DEPTHS)} layers and "
        "single-layer Stack-, Queue- and DeQue-LSTMs, each at hidden "
        f"{_listed(PAPER_HIDDEN)} and RMSProp learning rates "
        f"{_listed([f'{lr:.0e}' for lr in PAPER_LRS])}: "
        f"{len(PROFILES['paper'].points())} runs; embeddings {p.embedding}, memory width "
        f"{p.memory_width}, {p.vocab_size} symbols for copy, reversal and bigram flip, "
        f"batch {p.batch_size}, gradient clipping at {p.clip:g}, train lengths "
        f"{p.min_length}-{p.max_length} and test lengths {p.test_min_length}-"
        f"{p.test_max_length} (no curriculum), {p.eval_size} sequences per score. Each "
        "cell reports the run of its grid with the lowest training perplexity (exp of "
        "the mean cross-entropy per target symbol over the training batches since the "
        "previous evaluation), and names its configuration. Not given by the paper, "
        f"our choices: {p.steps:,} steps per run, one seed, an evaluation every "
        f"{p.eval_every:,} steps (the last one reported). Unlike the paper's Appendix "
        f"C, Table 1 (1/33 and 1/25 per word pair), the ITG tasks have {_pairs()} word "
        "pairs per terminal class, for about 128 source words"
    )


def _sizes(c: Grefenstette2015Config) -> str:
    """A quick or smoke run's sizes, optimiser and lengths."""
    return (
        f"hidden {c.hidden}, embeddings {c.embedding}, memory width {c.memory_width}, "
        f"{c.vocab_size} symbols for copy, reversal and bigram flip, Adam lr {c.lr}, "
        f"batch {c.batch_size}, {c.steps} steps, train lengths {c.min_length}-"
        f"{c.max_length} by a curriculum from {c.curriculum_start}, test lengths "
        f"{c.test_min_length}-{c.test_max_length}"
    )


def _listed(values: Sequence[object]) -> str:
    """The values written as a list, such as "1, 2, 4 and 8"."""
    words = [str(v) for v in values]
    return ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else "".join(words)


def _pairs() -> str:
    """The word pairs per terminal class of the ITG tasks' grammars."""
    svo = len(SVO_TO_SOV.classes["ST"])
    conjugation = len(GENDERLESS_TO_GENDERED.classes["W"])
    return f"{svo} (SVO->SOV) and {conjugation} (conjugation)"
