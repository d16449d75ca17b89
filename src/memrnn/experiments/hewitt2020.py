"""Hewitt, Hahn, Ganguli, Liang, Manning (2020), *RNNs can generate bounded hierarchical
languages with optimal memory*: the constructions and LSTMs learning Dyck-(k,m).

Two kinds of run. A "construction" run builds one hand-made generator
(``memrnn.constructions``) and verifies that it generates Dyck-(k,m), exhaustively or by
random walks. An "lm" run trains the LSTM language model of Appendix H and scores bracket
closing (Appendix H.4) on the dev set and on the longer test set.

The training recipe is Appendix H.3's as the authors' code (dyckkm-learning) carries it
out: Adam from lr 0.01, batches of 10 strings in a new random order every epoch, the dev
loss after every epoch (the mean over dev batches of 10 of each batch's loss per token),
the rate halved when that loss does not fall by a relative 1e-4 (Adam's moments kept: the
code lowers the rate in place, where the text says Adam is restarted), the model kept when
the loss falls by more than 1e-4, and training stopped three epochs after the last kept
model. Every seed of a cell trains on the same training, dev and test sets ("identical
development and test sets" in all settings, Appendix H.1; one training file per setting in
the authors' code); the seed sets the initialisation and the batch order. Figure 3 reports
the median over three seeds.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import torch
from torch import Tensor

from memrnn.constructions import build, theorem_units, verify
from memrnn.experiments.base import (
    FittedExperiment,
    Profile,
    RunContext,
    RunOutput,
    RunRecord,
    RunSpec,
)
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.grid import Axis, Grid, Point, grid_runs
from memrnn.experiments.tables import (
    Cell,
    PaperTables,
    Printed,
    Table,
    group,
    median,
    paper_number,
    where,
)
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
from memrnn.models.lstm_lm import LSTMLanguageModel
from memrnn.tasks.dyck_lm import batch_mean_loss, batches, bracket_closing, loss, perplexity
from memrnn.training import LoopSettings, train_loop
from memrnn.training.loop import History

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PRECISION_BITS = 32  # p in the lower bound m log2(k) / p, for float32
# The dev loss must fall by more than this to keep a model (absolute), and by this
# fraction to keep the rate (relative, PyTorch's ReduceLROnPlateau default), as in the
# authors' code.
KEEP_MARGIN = 1e-4
RATE_MARGIN = 1e-4
Kind = Literal["srnn-onehot", "lstm-onehot", "srnn-log", "lstm-log", "srnn-dfa"]  # KINDS
# The paper's grid of language models (section 8, Figure 3): k, m, training tokens.
PAPER_KS, PAPER_MS = (2, 8, 32, 128), (3, 5)
PAPER_SIZES = (2_000, 20_000, 200_000, 2_000_000, 20_000_000)
PAPER_TOKENS = PAPER_SIZES[-1]


def lm_row(k: int, m: int, train_tokens: int) -> str:
    """The row of the language-model table for Dyck-(k,m) trained on ``train_tokens``."""
    return f"k={k} m={m} {train_tokens:,} tokens"


# The paper's one number for the language models: for every (k, m) at 2e7 training
# tokens, "error less than 10^{-4}" (section 8), i.e. mean_l p_l above 1 - 1e-4.
PAPER: PaperTables = {
    "lm": {
        lm_row(k, m, PAPER_TOKENS): {"test_median": Printed(1 - 1e-4)}
        for k in PAPER_KS
        for m in PAPER_MS
    }
}


def lstm_units(k: int, m: int) -> int:
    """3 m ceil(log2 k) - m, the LSTM size of Theorem 5 used in section 8."""
    return theorem_units("lstm-log", k, m)


def train_lengths(m: int) -> tuple[int, int]:
    """Training (and dev) lengths, end symbol counted: Table 2's 1:84 (1:180) as the
    authors' generator reads it. It refuses to end a string before its first token and
    rejects strings longer than the maximum, so every string holds a bracket pair: 3 to 84
    tokens (3 to 180), not the lone end symbol that a minimum of 1 would allow."""
    return 3, length_ranges(m)[0][1]


@dataclass(frozen=True)
class Hewitt2020Config(TrainConfig):
    """One run: a construction to verify, or an LSTM language model to train.

    Attributes:
        part: "construction" or "lm".
        k, m: the language Dyck-(k,m).
        kind: the construction (part "construction").
        walk_steps: 0 for the exhaustive search, else random walks of this many steps.
        k_last: 0 for one language; else a sweep, verifying every Dyck-(k', m) with
            k <= k' <= k_last exhaustively in one run.
        train_tokens, dev_tokens, test_tokens: split sizes (part "lm").
        max_epochs: a cap on the epochs (100, as in the authors' code).
        patience: epochs after the last kept model before stopping (3).
        lr: the starting learning rate (0.01; Appendix H.3 uses 0.001 for 2e7 tokens,
            and for k = 128 from 2e6).
        batch_size: strings per Adam step (10).
        clip: 0: no gradient is clipped (none is in the authors' code); other values
            are refused.
        seed: the model's initialisation and the order of the training batches.
        data_seed: the splits; every seed of a cell shares them, made once and kept in
            the run's data folder (the same strings as made in memory).
    """

    part: Literal["construction", "lm"] = "lm"
    k: int = 2
    m: int = 3
    kind: Kind = "lstm-log"
    walk_steps: int = 0
    k_last: int = 0
    train_tokens: int = 20_000
    dev_tokens: int = 20_000
    test_tokens: int = 300_000
    max_epochs: int = 100
    lr: float = 0.01
    batch_size: int = 10
    clip: float = 0.0
    patience: int = 3
    data_seed: int = 0

    def validate(self) -> None:
        super().validate()
        self.require_positive("k", "m", "train_tokens", "dev_tokens", "test_tokens", "max_epochs")
        if self.data_seed < 0:
            raise ValueError(f"data_seed: must not be negative, got {self.data_seed}")
        if self.k_last and (self.k_last < self.k or self.walk_steps or self.part != "construction"):
            raise ValueError(
                f"k_last: a sweep is an exhaustive construction run with k_last >= k = {self.k}, "
                f"got k_last={self.k_last}, walk_steps={self.walk_steps}, part={self.part!r}"
            )
        if self.part == "lm" and self.k < 2:
            raise ValueError(f"k: the LSTM size 3m ceil(log2 k) - m needs k >= 2, got {self.k}")
        if self.part == "lm" and self.patience < 1:
            raise ValueError(f"patience: must be at least 1, got {self.patience}")
        if self.clip:
            raise ValueError(f"clip: the recipe clips no gradient, expected 0, got {self.clip}")


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


class _LanguageModelSteps:
    """The LSTM language model as the training loop drives it: one batch of the epoch's
    shuffled order per step, the dev loss per token (mean over batches) after each epoch."""

    def __init__(
        self,
        model: LSTMLanguageModel,
        optimizer: torch.optim.Optimizer,
        splits: DyckSplits,
        size: int,
    ) -> None:
        self.model = model
        self.optimizer = optimizer
        self.train, self.dev, self.size = list(splits.train), list(splits.dev), size
        self.per_epoch = math.ceil(len(self.train) / size)
        self._epoch: Iterator[Tensor] = iter(())
        self._left = 0

    def training_batch(self, rng: np.random.Generator) -> Tensor:
        if self._left == 0:  # a new epoch: a new order
            self._epoch, self._left = batches(self.train, self.size, rng), self.per_epoch
        self._left -= 1
        return next(self._epoch)

    def loss(self, batch: Tensor) -> Tensor:
        return loss(self.model, batch)

    def evaluate(self, rng: np.random.Generator) -> dict[str, float]:
        return {
            "dev_loss": batch_mean_loss(self.model, self.dev, self.size),
            "lr": float(self.optimizer.param_groups[0]["lr"]),
        }


def train_language_model(
    config: Hewitt2020Config,
    data: Path | None,
    checkpoint: Path | None = None,
    resume: bool = False,
) -> tuple[dict[str, float], dict[str, Any], History]:
    """Appendix H.3's recipe, as the authors' code runs it: Adam, the learning rate halved
    whenever the dev loss stops falling, the weights of the best dev loss kept, a stop
    ``patience`` epochs after them. Metrics and artifacts of the kept model, and the
    loop's history (one evaluation per epoch). ``data``: the folder the splits are kept
    in. With ``checkpoint``, a checkpoint at the end of every epoch, continued from when
    ``resume`` is set."""
    splits = lm_splits(config, data)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        model = LSTMLanguageModel(
            2 * config.k + 1, 2 * config.k + 10, lstm_units(config.k, config.m)
        )
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    steps = _LanguageModelSteps(model, optimizer, splits, config.batch_size)
    epoch = steps.per_epoch
    settings = LoopSettings(
        steps=config.max_epochs * epoch,
        eval_every=epoch,
        checkpoint_every=epoch,
        patience=config.patience,
        monitor="dev_loss",
        margin=KEEP_MARGIN,
        keep_best=True,
    )
    result = train_loop(
        steps,
        optimizer,
        settings,
        data_rng=np.random.default_rng([config.seed, 1]),
        eval_rng=lambda step: np.random.default_rng([config.seed, 2, step]),
        schedule=torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, mode="min", factor=0.5, patience=0, threshold=RATE_MARGIN
        ),
        checkpoint=checkpoint,
        resume=resume,
    )
    by_step: dict[int, dict[str, float]] = {}
    for step, name, value in result.history:
        by_step.setdefault(step, {})[name] = value
    history = [(step // epoch, v["dev_loss"], v["lr"]) for step, v in sorted(by_step.items())]
    test = list(splits.test)
    dev_scores = bracket_closing(model, steps.dev, config.k)
    test_scores = bracket_closing(model, test, config.k)
    test_prefixes = bracket_closing(model, test, config.k, every_open_prefix=True)
    metrics = {
        "dev_closing": dev_scores.mean,
        "test_closing": test_scores.mean,
        "test_closing_prefixes": test_prefixes.mean,
        "dev_loss": by_step[result.best_step]["dev_loss"],
        "test_perplexity": perplexity(model, test),
        "epochs": float(len(history)),
        "best_epoch": float(result.best_step // epoch),
        "units": float(lstm_units(config.k, config.m)),
    }
    distances, p = test_scores.curve()
    artifacts = {
        "history": history,
        "test_curve": {"distance": distances.tolist(), "p": p.tolist()},
        "train_strings": len(steps.train),
    }
    return metrics, artifacts, result.history


def verify_construction(
    config: Hewitt2020Config, device: torch.device
) -> tuple[dict[str, float], dict[str, Any]]:
    """One construction verified (exhaustively or by walks) on ``device``, or a sweep of
    them over k..k_last; a sweep's metrics summarise its languages and its artifacts list
    each."""
    if config.k_last:
        rows = [_verified(config, k, 0, device) for k in _ks(config)]
        metrics = {
            "pairs": float(len(rows)),
            "generates": float(all(r["generates"] for r in rows)),
            "units_as_stated": float(all(r["units"] == r["stated_units"] for r in rows)),
            "min_allowed": min(r["min_allowed"] for r in rows),
            "max_forbidden": max(r["max_forbidden"] for r in rows),
            "states": float(sum(r["states"] for r in rows)),
        }
        return metrics, {"languages": rows}
    return _verified(config, config.k, config.walk_steps, device), {}


def _ks(config: Hewitt2020Config) -> range:
    return range(config.k, max(config.k, config.k_last) + 1)


def _verified(
    config: Hewitt2020Config, k: int, walk_steps: int, device: torch.device
) -> dict[str, float]:
    """Build and verify ``config.kind`` for Dyck-(k, config.m) on ``device``."""
    kind, m = config.kind, config.m
    model = build(kind, k, m).to(device)
    exhaustive = walk_steps == 0
    options = {} if exhaustive else {"steps": walk_steps, "seed": config.seed}
    result = verify(model, exhaustive=exhaustive, **options)
    return {
        "k": float(k),
        "m": float(m),
        "units": float(model.hidden_size),
        "stated_units": float(theorem_units(kind, k, m)),
        "lower_bound": m * math.log2(k) / PRECISION_BITS if k > 1 else 0.0,
        "generates": float(result.generates),
        "min_allowed": result.min_allowed,
        "max_forbidden": result.max_forbidden,
        "states": float(result.states),
        "exhaustive": float(result.exhaustive),
    }


def largest_k(bound: int, power: int) -> int:
    """The largest k with k^power <= bound."""
    k = round(bound ** (1 / power))
    while k**power > bound:
        k -= 1
    while (k + 1) ** power <= bound:
        k += 1
    return k


# The sweep: the four efficient constructions on every (k, m) with k >= 2 and
# k^m <= SWEEP_BOUND, Theorem 1's on k^(m + 1) <= DFA_BOUND. Each run sweeps one m; m = 1
# runs in blocks of M1_BLOCK brackets, and the quick profile stops m = 1 at QUICK_M1_LAST:
# every language costs (k + 1)(2k + 1) next-token probabilities plus 2k network steps, so
# m = 1 grows like k^3 (k^4 for one-hot codes, whose dense weights grow like k^2), measured
# on this 2-core CPU at 9 s for the log codes at k = 20000 and 25 s for the one-hot SRNN at
# k = 5000. Every m >= 2 together is about 150 s.
SWEEP_BOUND, DFA_BOUND = 20_000, 4_096
M1_BLOCK, QUICK_M1_LAST = 1_000, 1_000


def sweep_runs(kind: str, quick: bool) -> list[tuple[int, int, int]]:
    """(m, first k, last k) of the sweep runs of one construction."""
    if kind == "srnn-dfa":
        return [
            (m, 2, largest_k(DFA_BOUND, m + 1))
            for m in range(1, 12)
            if largest_k(DFA_BOUND, m + 1) >= 2
        ]
    runs = [(m, 2, largest_k(SWEEP_BOUND, m)) for m in range(2, 15)]
    last = QUICK_M1_LAST if quick else SWEEP_BOUND
    runs += [(1, lo, min(lo + M1_BLOCK - 1, last)) for lo in range(1, last + 1, M1_BLOCK)]
    return [(m, max(2, lo), hi) for m, lo, hi in runs if largest_k(SWEEP_BOUND, m) >= 2]


# (k, m) listed one by one in the report from the sweeps, and the large ones walked
LISTED = [(2, 3), (3, 3), (4, 3), (8, 3), (2, 5), (3, 5), (5, 2), (141, 2), (2, 14), (1000, 1)]
WALKED = [(128, 5), (64, 10), (1000, 3)]
EFFICIENT = ("srnn-onehot", "lstm-onehot", "srnn-log", "lstm-log")
# LSTMs trained per cell, reported by their median as in Figure 3
LM_SEEDS = 3
SMOKE_DFA_LAST = 3
_CONSTRUCTION: dict[str, Axis] = {"part": ("construction",)}


def _sweeps(quick: bool) -> Grid:
    """Every construction, verified exhaustively on its sweep's languages."""
    kinds = (*EFFICIENT, "srnn-dfa")
    return Grid({**_CONSTRUCTION, "kind": kinds, "sweep": lambda p: sweep_runs(p["kind"], quick)})


def _walks(quick: bool) -> Grid:
    """The efficient constructions by walks on the large languages; one-hot codes at
    k = 1000 have 3000-6000 dense units, 30 s per 1000 steps, so fewer in the quick profile."""

    def steps(point: Point) -> tuple[int]:
        slow = "onehot" in point["kind"] and point["language"][0] >= 1000
        return (1_000 if quick and slow else 10_000,)

    return Grid({**_CONSTRUCTION, "kind": EFFICIENT, "language": WALKED, "walk_steps": steps})


def _language_models(ks: Sequence[int], ms: Sequence[int], sizes: Sequence[int]) -> Grid:
    """LSTMs per (k, m, training tokens) and seed, at Appendix H.3's learning rates: 0.01,
    and 0.001 for 2e7 tokens and for k = 128 from 2e6."""

    def lr(point: Point) -> tuple[float]:
        k, size = point["k"], point["train_tokens"]
        return (0.001 if size >= 20_000_000 or (k == 128 and size >= 2_000_000) else 0.01,)

    return Grid(
        {
            "part": ("lm",),
            "k": ks,
            "m": ms,
            "train_tokens": sizes,
            "lr": lr,
            "seed": range(LM_SEEDS),
        }
    )


PROFILES: dict[Profile, tuple[Grid, ...]] = {
    # A check that every part and the report run, not a result: the constructions on
    # tiny languages, one LSTM trained for two epochs on a few hundred tokens.
    "smoke": (
        Grid({**_CONSTRUCTION, "kind": EFFICIENT, "k": (2,), "m": (2,)}),
        Grid({**_CONSTRUCTION, "kind": ("srnn-dfa",), "sweep": ((1, 2, SMOKE_DFA_LAST),)}),
        Grid(
            {"part": ("lm",), "k": (2,), "m": (3,), "train_tokens": (300,), "seed": (0,)},
            {"dev_tokens": 200, "test_tokens": 400, "max_epochs": 2},
        ),
    ),
    "quick": (_sweeps(True), _walks(True), _language_models((2, 8), (3,), (20_000, 200_000))),
    "paper": (_sweeps(False), _walks(False), _language_models(PAPER_KS, PAPER_MS, PAPER_SIZES)),
}


class Hewitt2020(FittedExperiment[Hewitt2020Config]):
    name = "hewitt2020"
    title = "Dyck-(k,m): hand-built generators and LSTM language models"
    reproduces = (
        "Hewitt et al. (2020): Theorems 1-5 checked on their constructions, and the "
        "bracket-closing results of section 8 (Figure 3)"
    )
    config_type = Hewitt2020Config

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            PROFILES[profile],
            name=_name,
            labels=lambda c: (c.part, f"k{c.k}-m{c.m}"),
            settings=_coordinates,
        )

    def fit_run(self, config: Hewitt2020Config, context: RunContext) -> RunOutput:
        started = time.perf_counter()
        if config.part == "construction":
            metrics, artifacts = verify_construction(config, context.device)
            return RunOutput(metrics, [], artifacts, 0, time.perf_counter() - started)
        metrics, artifacts, history = train_language_model(
            config, context.data, context.checkpoint, context.resume
        )
        steps = history[-1][0] if history else 0
        return RunOutput(metrics, history, artifacts, steps, time.perf_counter() - started)

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        constructions: dict[str, dict[str, Cell]] = {}
        sweeps: dict[str, dict[str, Cell]] = {}
        lms: dict[str, dict[str, Cell]] = {}
        for r, row in _languages(records):
            if r.spec.config["k_last"] and (int(row["k"]), int(row["m"])) not in LISTED:
                continue
            label = f"{r.spec.config['kind']} k={int(row['k'])} m={int(row['m'])}"
            constructions[label + ("" if row["exhaustive"] else " (walks)")] = {
                name: Cell(row[name], seeds=(r.spec.seed,)) for name in CONSTRUCTION_COLUMNS
            }
        for r in _construction_runs(records):
            c = r.spec.config
            if c["k_last"]:
                sweeps[f"{c['kind']} m={c['m']} k={c['k']}..{c['k_last']}"] = {
                    name: Cell(r.metrics[name], seeds=(r.spec.seed,), wall_seconds=r.wall_seconds)
                    for name in SWEEP_COLUMNS
                }
        for (k, m, size), runs in _lm_cells(records).items():
            seeds = tuple(r.spec.seed for r in runs)
            wall = sum(r.wall_seconds for r in runs)
            tests = [r.metrics["test_closing"] for r in runs]
            label = lm_row(k, m, size)
            lms[label] = {
                "units": Cell(runs[0].metrics["units"], seeds=seeds),
                "seeds": Cell(float(len(runs)), seeds=seeds),
                "dev_median": Cell(median(runs, "dev_closing"), seeds=seeds),
                "test_median": Cell(
                    float(np.median(tests)),
                    paper_number(PAPER, "lm", label, "test_median"),
                    seeds=seeds,
                    wall_seconds=wall,
                ),
                "test_min": Cell(float(np.min(tests)), seeds=seeds),
                "test_max": Cell(float(np.max(tests)), seeds=seeds),
                "test_prefixes_median": Cell(median(runs, "test_closing_prefixes"), seeds=seeds),
            }
        return [
            Table(
                "constructions",
                "Hand-built generators: hidden units against the count each theorem states "
                "(Theorems 2-5; for Theorem 1, which bounds its construction by O(k^(m+1)) "
                "only, the construction's own 2(k + k^2 + ... + k^m)) and the lower bound "
                "m log2(k) / p (p = 32 bits), whether each generates Dyck-(k,m) (1 = yes), the "
                "smallest allowed-token probability, and the (automaton, network) states "
                "searched (walk steps times walks for walks); a few languages from the sweeps, "
                "and the walks",
                list(CONSTRUCTION_COLUMNS),
                constructions,
            ),
            Table(
                "sweep",
                "The exhaustive sweeps: languages verified per run, whether all generate "
                "Dyck-(k,m) and all have the stated units of the constructions table (1 = yes), "
                "the extreme allowed and forbidden probabilities over all of them, and the "
                "states searched",
                list(SWEEP_COLUMNS),
                sweeps,
            ),
            Table(
                "lm",
                "LSTM language models, every seed of a row on the same training, dev and test "
                "sets: the median over seeds (as in Figure 3) of the bracket-closing metric "
                "mean_l p_l at each close bracket (Appendix H.4) on dev (training lengths) and "
                "test (longer strings), the smallest and largest test value over seeds, and the "
                "test median at every prefix with an open bracket (the positions the authors' "
                "code scores). In parentheses, at 2e7 tokens only: the paper's claim for all "
                'configurations, "error less than 10^{-4} when trained on 20 million tokens" '
                "(section 8), as 1 - 1e-4",
                list(LM_COLUMNS),
                lms,
            ),
        ]

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        lines = []
        pairs = _languages(records)
        if pairs:
            languages = [row for _, row in pairs]
            ok = sum(row["generates"] == 1.0 for row in languages)
            walked = sum(not row["exhaustive"] for row in languages)
            lines.append(
                f"{ok} of {len(languages)} (construction, language) pairs generate "
                f"Dyck-(k,m) ({len(languages) - walked} searched exhaustively, {walked} by "
                "walks)."
            )
            efficient = [row for r, row in pairs if r.spec.config["kind"] in EFFICIENT]
            if efficient:
                stated = sum(row["units"] == row["stated_units"] for row in efficient)
                lines.append(
                    f"{stated} of {len(efficient)} pairs of the constructions of Theorems 2-5 "
                    "have the hidden units those theorems state."
                )
            dfa = [row for r, row in pairs if r.spec.config["kind"] == "srnn-dfa"]
            if dfa:
                ratio = max(row["units"] / row["k"] ** (row["m"] + 1) for row in dfa)
                lines.append(
                    "Theorem 1 bounds its construction by O(k^(m+1)) hidden units; ours "
                    f"(srnn-dfa) has 2(k + k^2 + ... + k^m) units, at most {ratio:.3f} "
                    f"k^(m+1) over its {len(dfa)} languages."
                )
        for kind in (*EFFICIENT, "srnn-dfa"):
            covered = {
                (int(row["k"]), int(row["m"]))
                for r, row in pairs
                if r.spec.config["kind"] == kind and row["exhaustive"]
            }
            bound, extra = (DFA_BOUND, 1) if kind == "srnn-dfa" else (SWEEP_BOUND, 0)
            missing = [
                (k, m)
                for m in range(1, 15)
                for k in range(2, largest_k(bound, m + extra) + 1)
                if (k, m) not in covered
            ]
            if len(covered) > len(LISTED):
                power = "k^(m+1)" if extra else "k^m"
                lines.append(
                    f"{kind}: exhaustive on {len(covered)} languages; of {power} <= {bound} it "
                    f"leaves out {_describe(missing)}."
                )
        cells = _lm_cells(records)
        for (k, m, size), runs in cells.items():
            tests = ", ".join(f"{r.metrics['test_closing']:.4f}" for r in runs)
            seeds = ", ".join(str(r.spec.seed) for r in runs)
            lines.append(
                f"LSTM, k={k}, m={m}, {size:,} training tokens: median test bracket closing "
                f"{median(runs, 'test_closing'):.4f} over seeds {seeds} ({tests}); at every "
                f"prefix with an open bracket, median {median(runs, 'test_closing_prefixes'):.4f}."
            )
        profiles = {r.spec.profile for r in records}
        if cells and "smoke" not in profiles and all(s != PAPER_TOKENS for _, _, s in cells):
            lines.append(
                "The paper's one number for the language models is for 20 million training "
                'tokens: "error less than 10^{-4}" for all configurations (section 8); this '
                f"profile stops at {max(s for _, _, s in cells):,} tokens, so no cell here "
                "stands against it."
            )
        return lines

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        from matplotlib.figure import Figure

        cells = _lm_cells(records)
        if not cells:
            return {}
        colours = _colours(len(cells))
        by_distance = Figure(figsize=(6.5, 4))
        axes = by_distance.add_subplot()
        for index, (colour, ((k, m, size), runs)) in enumerate(
            zip(colours, cells.items(), strict=True)
        ):
            distances, low, median, high = _curve_band(runs)
            # dashes as well as colours, so that lines lying on each other (at p_l = 1)
            # all stay visible
            axes.plot(
                distances, median, color=colour, linestyle=LINE_STYLES[index % len(LINE_STYLES)],
                label=f"k={k} m={m} {size:,}",
            )  # fmt: skip
            axes.fill_between(distances, low, high, color=colour, alpha=0.2, linewidth=0)
        axes.set_xlabel("tokens between the close bracket and its open bracket (l)")
        axes.set_ylabel("p_l on test: median over seeds, band min-max")
        axes.set_ylim(-0.02, 1.02)
        axes.legend(fontsize=7, title="language, training tokens", title_fontsize=7)
        return {"closing-by-distance": by_distance, "learning-curves": _learning_curves(cells)}

    def scale(self, profile: Profile) -> str:
        if profile == "smoke":
            lm = next(spec.config for spec in self.runs(profile) if spec.config["part"] == "lm")
            return (
                "smoke: the four efficient constructions verified exhaustively on Dyck-(2,2), "
                f"Theorem 1's on Dyck-(k,1) for k = 2..{SMOKE_DFA_LAST}, and one LSTM (seed 0) "
                f"trained for at most {lm['max_epochs']} epochs on {lm['train_tokens']} "
                f"tokens of Dyck-({lm['k']},{lm['m']}) (dev {lm['dev_tokens']}, test "
                f"{lm['test_tokens']} tokens). It checks that the runs and the report work; its "
                "numbers are not results and nothing here is compared with the paper."
            )
        if profile == "quick":
            return (
                f"constructions verified exhaustively on every k^m <= {SWEEP_BOUND} with m >= 2 "
                f"and m = 1 up to k = {QUICK_M1_LAST} (Theorem 1's: k^(m+1) <= {DFA_BOUND}), "
                "and by 10,000-step walks (1,000 for the one-hot codes at k = 1000) on (128,5), "
                "(64,10), (1000,3); LSTMs "
                f"for k in {{2, 8}}, m = 3, 2e4 and 2e5 training tokens, {LM_SEEDS} seeds each "
                "on shared splits (the paper: k up to 128, m in {3, 5}, up to 2e7 tokens)"
            )
        if profile == "paper":
            return (
                f"the paper's LSTM grid ({LM_SEEDS} seeds per cell on shared splits) and the "
                f"exhaustive sweep over every k^m <= {SWEEP_BOUND}"
            )
        return super().scale(profile)


CONSTRUCTION_COLUMNS = (
    "units", "stated_units", "lower_bound", "generates", "min_allowed", "states"
)  # fmt: skip
SWEEP_COLUMNS = ("pairs", "generates", "units_as_stated", "min_allowed", "max_forbidden", "states")
LM_COLUMNS = (
    "units", "seeds", "dev_median", "test_median", "test_min", "test_max", "test_prefixes_median"
)  # fmt: skip


LINE_STYLES = ("-", "--", "-.", ":")


def _colours(n: int) -> list[Any]:
    """n distinct colours in a fixed order (tab10, or tab20 beyond ten)."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _curve_band(
    runs: Sequence[RunRecord],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distances and the min, median and max of p_l over the runs that saw each one."""
    seen: dict[float, list[float]] = {}
    for r in runs:
        curve = r.artifacts["test_curve"]
        for d, p in zip(curve["distance"], curve["p"], strict=True):
            seen.setdefault(d, []).append(p)
    distances = np.array(sorted(seen))
    values = [np.array(seen[d]) for d in distances]
    return (
        distances,
        np.array([v.min() for v in values]),
        np.array([np.median(v) for v in values]),
        np.array([v.max() for v in values]),
    )


def _learning_curves(cells: dict[tuple[int, int, int], list[RunRecord]]) -> Figure:
    """Figure 3's layout: mean_l p_l against training tokens, one panel per m and one colour
    per k, dev dashed and test solid at the median over seeds, test min-max shaded."""
    from matplotlib.figure import Figure

    ms = sorted({m for _, m, _ in cells})
    ks = sorted({k for k, _, _ in cells})
    colours = dict(zip(ks, _colours(len(ks)), strict=True))
    figure = Figure(figsize=(6, 2.2 * len(ms) + 0.6))
    for row, m in enumerate(ms):
        axes = figure.add_subplot(len(ms), 1, row + 1)
        for k in ks:
            sizes = sorted(size for kk, mm, size in cells if (kk, mm) == (k, m))
            if not sizes:
                continue
            runs = [cells[(k, m, size)] for size in sizes]
            tests = [[r.metrics["test_closing"] for r in rs] for rs in runs]
            colour = colours[k]
            axes.plot(
                sizes, [median(rs, "dev_closing") for rs in runs], "--", marker="d",
                color=colour, label=f"k={k}, dev",
            )  # fmt: skip
            axes.plot(
                sizes, [float(np.median(t)) for t in tests], marker="H", color=colour,
                label=f"k={k}, test",
            )  # fmt: skip
            axes.fill_between(
                sizes, [min(t) for t in tests], [max(t) for t in tests], color=colour,
                alpha=0.2, linewidth=0,
            )  # fmt: skip
        axes.set_xscale("log")
        axes.set_ylabel(f"m={m}")
        axes.set_ylim(-0.02, 1.02)
        axes.legend(fontsize=7, loc="lower right")
    axes.set_xlabel("training tokens")
    figure.suptitle("mean_l p_l, median over seeds (test band: min-max)", fontsize=9)
    return figure


def _construction_runs(records: Sequence[RunRecord]) -> list[RunRecord]:
    """The construction runs, by kind, m and first k."""
    runs = where(records, part="construction")
    return sorted(runs, key=lambda r: tuple(r.spec.config[n] for n in ("kind", "m", "k")))


def _languages(records: Sequence[RunRecord]) -> list[tuple[RunRecord, dict[str, float]]]:
    """Every language a construction run verified, with its run: a sweep's artifacts list
    its languages, a single run's metrics are its one."""
    pairs = []
    for r in _construction_runs(records):
        rows = r.artifacts.get("languages") if r.spec.config["k_last"] else [r.metrics]
        pairs += [(r, dict(row)) for row in rows or []]
    return pairs


def _describe(pairs: list[tuple[int, int]]) -> str:
    """A short account of (k, m) pairs left out: nothing, or per m the range of k."""
    if not pairs:
        return "nothing"
    by_m: dict[int, list[int]] = {}
    for k, m in pairs:
        by_m.setdefault(m, []).append(k)
    parts = [
        f"m={m}: k={min(ks)}..{max(ks)} ({len(ks)} languages)" for m, ks in sorted(by_m.items())
    ]
    return "; ".join(parts)


def _lm_cells(records: Sequence[RunRecord]) -> dict[tuple[int, int, int], list[RunRecord]]:
    """The language-model runs grouped by (k, m, training tokens), seeds together."""
    return group(where(records, part="lm"), "k", "m", "train_tokens")


def _coordinates(point: Point) -> Mapping[str, Any]:
    """The config fields of a construction's sweep (m, first k, last k) or walked
    language (k, m)."""
    if "sweep" in point:
        m, k, k_last = point["sweep"]
        return {"m": m, "k": k, "k_last": k_last}
    if "language" in point:
        k, m = point["language"]
        return {"k": k, "m": m}
    return {}


def _name(point: Point, config: Hewitt2020Config) -> str:
    """A run's name, such as "construction/lstm-log/m2/k2-141/sweep",
    "construction/srnn-log/k128-m5/walks10000" or "lm/k2-m3/20000/seed0"."""
    c = config
    if c.k_last:
        return f"construction/{c.kind}/m{c.m}/k{c.k}-{c.k_last}/sweep"
    if c.part == "construction":
        how = "exhaustive" if c.walk_steps == 0 else f"walks{c.walk_steps}"
        return f"construction/{c.kind}/k{c.k}-m{c.m}/{how}"
    return f"lm/k{c.k}-m{c.m}/{c.train_tokens}/seed{c.seed}"
