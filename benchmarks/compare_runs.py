"""The same runs from two output folders of ``memrnn reproduce``, side by side: how many
ended with identical final metrics, how far apart the rest ended, and their run time.

Made to compare runs trained one by one (``--group 1``) with the same runs trained as
one batched model (the default), but any two folders with runs of the same keys will do:

    memrnn reproduce matrix --profile quick --seeds 2 3 --group 1 --out alone
    memrnn reproduce matrix --profile quick --seeds 2 3 --out grouped
    python benchmarks/compare_runs.py alone grouped --experiment matrix \\
        --models stack_lstm queue_lstm deque_lstm
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from memrnn.experiments.base import RunRecord
from memrnn.runner.reproduce import STORE_NAME
from memrnn.runner.store import ResultsStore


def _records(folder: Path, experiment: str, models: list[str] | None) -> dict[str, RunRecord]:
    with ResultsStore(folder / STORE_NAME, create=False) as store:
        records = store.records(experiment)
    return {r.spec.key: r for r in records if models is None or r.spec.model in models}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("first", type=Path, help="an output folder (e.g. runs alone)")
    parser.add_argument("second", type=Path, help="another (e.g. the same runs grouped)")
    parser.add_argument(
        "--experiment",
        default="matrix",
        help="the runs' experiment, as `memrnn list --names` names it (default: %(default)s)",
    )
    parser.add_argument("--models", nargs="+", help="only the runs of these models")
    parser.add_argument(
        "--metrics",
        nargs="+",
        default=["train_score", "test_score"],
        help="the final metrics compared (names in the runs' metrics) (default: %(default)s)",
    )
    args = parser.parse_args()
    first = _records(args.first, args.experiment, args.models)
    second = _records(args.second, args.experiment, args.models)
    keys = sorted(set(first) & set(second))
    if not keys:
        raise SystemExit("no run of the same key in both folders")
    same = sum(first[k].metrics == second[k].metrics for k in keys)
    print(f"{len(keys)} runs in both; {same} with every final metric identical")
    for name in args.metrics:
        pairs = [(first[k].metrics[name], second[k].metrics[name]) for k in keys]
        gaps = [abs(a - b) for a, b in pairs]
        print(
            f"{name}: |difference| median {statistics.median(gaps):.3f}, max {max(gaps):.3f}; "
            f"mean {statistics.mean(a for a, _ in pairs):.3f} (first) against "
            f"{statistics.mean(b for _, b in pairs):.3f} (second)"
        )
    seconds = [sum(records[k].wall_seconds for k in keys) for records in (first, second)]
    print(f"run time: {seconds[0]:.0f} s (first), {seconds[1]:.0f} s (second)")


if __name__ == "__main__":
    main()
