"""The sentences at the top of hewitt2020's report section: how many (construction,
language) pairs generate Dyck-(k,m) and have the units their theorems state, what the
sweeps leave out, and each LSTM cell's median bracket closing."""

from __future__ import annotations

from collections.abc import Sequence

from memrnn.experiments.base import RunRecord
from memrnn.experiments.hewitt2020.paper import PAPER_TOKENS
from memrnn.experiments.hewitt2020.profiles import DFA_BOUND, EFFICIENT, SWEEP_BOUND, largest_k
from memrnn.experiments.hewitt2020.tables import LISTED, languages, lm_cells
from memrnn.experiments.tables import median

Pairs = list[tuple[RunRecord, dict[str, float]]]


def report_findings(records: Sequence[RunRecord]) -> list[str]:
    """The findings of the stored runs of one profile."""
    pairs = languages(records)
    return [*_construction_findings(pairs), *_coverage(pairs), *_lm_findings(records)]


def _construction_findings(pairs: Pairs) -> list[str]:
    """How many pairs generate, how many have their theorem's units, and how large
    Theorem 1's construction is against its O(k^(m+1))."""
    if not pairs:
        return []
    rows = [row for _, row in pairs]
    ok = sum(row["generates"] == 1.0 for row in rows)
    walked = sum(not row["exhaustive"] for row in rows)
    lines = [
        f"{ok} of {len(rows)} (construction, language) pairs generate Dyck-(k,m) "
        f"({len(rows) - walked} searched exhaustively, {walked} by walks)."
    ]
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
    return lines


def _coverage(pairs: Pairs) -> list[str]:
    """For each construction swept beyond the listed languages, the languages within its
    bound that no exhaustive search covered."""
    lines = []
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
    return lines


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


def _lm_findings(records: Sequence[RunRecord]) -> list[str]:
    """Each LSTM cell's median test bracket closing over its seeds, and whether any cell
    stands against the paper's number at 2e7 tokens."""
    lines = []
    cells = lm_cells(records)
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
