"""The report's tables of hewitt2020: the constructions (a few languages from the sweeps,
and the walks), the sweeps, and the language models' bracket closing with the paper's
claim beside the median over seeds (as in Figure 3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrnn.experiments.base import RunRecord
from memrnn.experiments.hewitt2020.paper import PAPER, lm_row
from memrnn.experiments.tables import Cell, Table, group, median, paper_number, where

CONSTRUCTION_COLUMNS = (
    "units", "stated_units", "lower_bound", "generates", "min_allowed", "states"
)  # fmt: skip
SWEEP_COLUMNS = ("pairs", "generates", "units_as_stated", "min_allowed", "max_forbidden", "states")
LM_COLUMNS = (
    "units", "seeds", "dev_median", "test_median", "test_min", "test_max", "test_prefixes_median"
)  # fmt: skip
# (k, m) listed one by one in the constructions table from the sweeps
LISTED = [(2, 3), (3, 3), (4, 3), (8, 3), (2, 5), (3, 5), (5, 2), (141, 2), (2, 14), (1000, 1)]
Rows = dict[str, dict[str, Cell]]


def construction_runs(records: Sequence[RunRecord]) -> list[RunRecord]:
    """The construction runs, by kind, m and first k."""
    runs = where(records, part="construction")
    return sorted(runs, key=lambda r: tuple(r.spec.config[n] for n in ("kind", "m", "k")))


def languages(records: Sequence[RunRecord]) -> list[tuple[RunRecord, dict[str, float]]]:
    """Every language a construction run verified, with its run: a sweep's artifacts list
    its languages, a single run's metrics are its one."""
    pairs = []
    for r in construction_runs(records):
        rows = r.artifacts.get("languages") if r.spec.config["k_last"] else [r.metrics]
        pairs += [(r, dict(row)) for row in rows or []]
    return pairs


def lm_cells(records: Sequence[RunRecord]) -> dict[tuple[int, int, int], list[RunRecord]]:
    """The language-model runs grouped by (k, m, training tokens), seeds together."""
    return group(where(records, part="lm"), "k", "m", "train_tokens")


def report_tables(records: Sequence[RunRecord]) -> list[Table]:
    """The constructions, sweep and lm tables of the stored runs."""
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
            _construction_rows(records),
        ),
        Table(
            "sweep",
            "The exhaustive sweeps: languages verified per run, whether all generate "
            "Dyck-(k,m) and all have the stated units of the constructions table (1 = yes), "
            "the extreme allowed and forbidden probabilities over all of them, and the "
            "states searched",
            list(SWEEP_COLUMNS),
            _sweep_rows(records),
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
            _lm_rows(records),
        ),
    ]


def _construction_rows(records: Sequence[RunRecord]) -> Rows:
    """One row per single run, and per LISTED language of a sweep."""
    rows: Rows = {}
    for r, row in languages(records):
        if r.spec.config["k_last"] and (int(row["k"]), int(row["m"])) not in LISTED:
            continue
        label = f"{r.spec.config['kind']} k={int(row['k'])} m={int(row['m'])}"
        rows[label + ("" if row["exhaustive"] else " (walks)")] = {
            name: Cell(row[name], seeds=(r.spec.seed,)) for name in CONSTRUCTION_COLUMNS
        }
    return rows


def _sweep_rows(records: Sequence[RunRecord]) -> Rows:
    """One row per sweep run."""
    rows: Rows = {}
    for r in construction_runs(records):
        c = r.spec.config
        if c["k_last"]:
            rows[f"{c['kind']} m={c['m']} k={c['k']}..{c['k_last']}"] = {
                name: Cell(r.metrics[name], seeds=(r.spec.seed,), wall_seconds=r.wall_seconds)
                for name in SWEEP_COLUMNS
            }
    return rows


def _lm_rows(records: Sequence[RunRecord]) -> Rows:
    """One row per (k, m, training tokens): summaries over its seeds."""
    rows: Rows = {}
    for (k, m, size), runs in lm_cells(records).items():
        seeds = tuple(r.spec.seed for r in runs)
        tests = [r.metrics["test_closing"] for r in runs]
        label = lm_row(k, m, size)
        rows[label] = {
            "units": Cell(runs[0].metrics["units"], seeds=seeds),
            "seeds": Cell(float(len(runs)), seeds=seeds),
            "dev_median": Cell(median(runs, "dev_closing"), seeds=seeds),
            "test_median": Cell(
                float(np.median(tests)),
                paper_number(PAPER, "lm", label, "test_median"),
                seeds=seeds,
                wall_seconds=sum(r.wall_seconds for r in runs),
            ),
            "test_min": Cell(float(np.min(tests)), seeds=seeds),
            "test_max": Cell(float(np.max(tests)), seeds=seeds),
            "test_prefixes_median": Cell(median(runs, "test_closing_prefixes"), seeds=seeds),
        }
    return rows
