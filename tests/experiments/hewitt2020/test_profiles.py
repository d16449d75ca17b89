"""The runs of each profile of hewitt2020, and the sweeps' coverage."""

from __future__ import annotations

import pytest

from memrnn.experiments.hewitt2020 import Hewitt2020, Hewitt2020Config, largest_k, sweep_runs
from memrnn.experiments.profiles import PROFILE_NAMES, Profile


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_runs_are_distinct_and_valid(profile: Profile) -> None:
    runs = Hewitt2020().runs(profile)
    assert len({spec.key for spec in runs}) == len(runs)
    for spec in runs[:200]:
        Hewitt2020Config(**spec.config).validate()
        assert spec.tags["part"] == spec.config["part"]
    lms = [s for s in runs if s.config["part"] == "lm"]
    if profile == "quick":
        assert {(s.config["k"], s.config["train_tokens"]) for s in lms} == {
            (2, 20_000), (2, 200_000), (8, 20_000), (8, 200_000)
        }  # fmt: skip


@pytest.mark.parametrize("kind", ["lstm-log", "srnn-dfa"])
def test_sweep_covers_the_bound_exactly(kind: str) -> None:
    bound, extra = (4096, 1) if kind == "srnn-dfa" else (20_000, 0)
    want = {(k, m) for m in range(1, 20) for k in range(2, 20_001) if k ** (m + extra) <= bound}
    for quick in (False, True):
        got = [(k, m) for m, lo, hi in sweep_runs(kind, quick) for k in range(lo, hi + 1)]
        assert len(got) == len(set(got))
        expected = {(k, m) for k, m in want if not quick or m > 1 or k <= 1000 or extra}
        assert set(got) == expected
    assert largest_k(20_000, 1) == 20_000 and largest_k(20_000, 2) == 141
    assert largest_k(20_000, 14) == 2 and largest_k(20_000, 15) == 1


def test_run_names_say_what_runs() -> None:
    names = {spec.name for spec in Hewitt2020().runs("quick")}
    assert "construction/lstm-log/m2/k2-141/sweep" in names
    assert "construction/srnn-log/k128-m5/walks10000" in names
    assert "construction/srnn-onehot/k1000-m3/walks1000" in names
    assert "lm/k8-m3/20000/seed2" in names
