"""Two runs of a profile with different seed sets, each to its own folder, give
conclusions that can be set side by side: the plumbing behind comparing the quick
profile's conclusions for two seed sets, at the smoke scale."""

from __future__ import annotations

from pathlib import Path

from memrnn.cli import main
from memrnn.experiments.matrix.findings import conclusions
from memrnn.runner.reproduce import STORE_NAME
from memrnn.runner.store import ResultsStore


def _conclusions(folder: Path) -> tuple[set[int], list[str]]:
    with ResultsStore(folder / STORE_NAME, create=False) as store:
        records = store.records("matrix")
    return {r.spec.seed for r in records}, conclusions(records)


def test_two_seed_sets_run_apart_and_their_conclusions_compare(tmp_path: Path) -> None:
    for seeds in (["5"], ["6", "7"]):
        out = tmp_path / "-".join(seeds)
        command = ["reproduce", "matrix", "--profile", "smoke", "--seeds", *seeds]
        assert main([*command, "--out", str(out), "--quiet", "--workers", "1"]) == 0
    (first_seeds, first), (second_seeds, second) = (
        _conclusions(tmp_path / name) for name in ("5", "6-7")
    )
    assert (first_seeds, second_seeds) == ({5}, {6, 7})
    # six steps of training solve nothing: every level and prediction comes out the same
    assert first == second
    assert first[0].startswith("Context-free tasks (reversal, rsm_dyck2): ")
    assert any(c.startswith("Predicted: a stack solves") for c in first)
