"""The quick profiles' measured times, kept in one place: read from the reports of
`make reproduce` runs, written to ``src/memrnn/experiments/quick_times.json``, and from
there into the table of ``docs/running.md`` and the list that `memrnn reproduce` prints
when asked to run nothing in particular.

    python benchmarks/quick_times.py reports/ [more report folders] \
        --command "make reproduce REPRODUCED=matrix" --machine "2-core AMD EPYC (Zen 5)"
    python benchmarks/quick_times.py --docs    # only the docs' table, from the JSON file

Each folder's ``runs.json`` gives, for every experiment whose quick profile finished
every run: the runs, their training time summed (each run's single-threaded time), the
time from the first run's start to the last run's end, and the code version. An
experiment already in the JSON file keeps its entry unless a folder measures it again.
"""

from __future__ import annotations

import argparse
import json
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TIMES = ROOT / "src" / "memrnn" / "experiments" / "quick_times.json"
DOCS = ROOT / "docs" / "running.md"
BEGIN = "<!-- quick-times: made by benchmarks/quick_times.py from quick_times.json -->"
END = "<!-- /quick-times -->"


def measure(
    folder: Path, command: str, machine: str, defined: Mapping[str, int] | None = None
) -> dict[str, dict[str, Any]]:
    """The quick-profile times of each experiment that finished every run in
    ``folder/runs.json``: as many as it defines (``defined``, by default memrnn's
    registry says), each finished."""
    if defined is None:
        from memrnn.experiments.registry import experiment_names, get_experiment

        defined = {n: len(get_experiment(n).runs("quick")) for n in experiment_names()}
    runs = json.loads((folder / "runs.json").read_text())
    by_experiment: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        if run["profile"] == "quick":
            by_experiment.setdefault(run["experiment"], []).append(run)
    times = {}
    for name, rows in sorted(by_experiment.items()):
        if len(rows) != defined.get(name) or any(row["status"] != "finished" for row in rows):
            continue
        times[name] = {
            "runs": len(rows),
            "run_minutes": round(sum(row["wall_seconds"] for row in rows) / 60, 1),
            "span_minutes": round(
                (max(row["ended"] for row in rows) - min(row["started"] for row in rows)) / 60, 1
            ),
            "code": ", ".join(sorted({row["code_version"] for row in rows})),
            "command": command,
            "machine": machine,
        }
    return times


def table(times: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The docs' table of ``times``, shortest run time first."""
    lines = [
        "| Experiment | Runs | Run time | First start to last end | Code | Command and machine |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]
    for name, t in sorted(times.items(), key=lambda item: item[1]["run_minutes"]):
        lines.append(
            f"| `{name}` | {t['runs']} | {t['run_minutes']:.1f} min | {t['span_minutes']:.1f} min "
            f"| {t['code']} | `{t['command']}`, {t['machine']} |"
        )
    return lines


def with_table(page: str, times: Mapping[str, Mapping[str, Any]]) -> str:
    """``page`` with the text between its markers replaced by the table of ``times``."""
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return "\n".join([head + BEGIN, *table(times), END]) + tail


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folders", nargs="*", type=Path, help="report folders with runs.json")
    parser.add_argument(
        "--command", default="make reproduce", help="the command that made the reports"
    )
    parser.add_argument(
        "--machine",
        default=f"{platform.processor() or platform.machine()}",
        help="the machine the reports were made on (default: this one's processor)",
    )
    parser.add_argument(
        "--docs", action="store_true", help="only rewrite the docs' table from the JSON file"
    )
    args = parser.parse_args(argv)
    if not args.folders and not args.docs:
        parser.error("give report folders, or --docs")
    times = json.loads(TIMES.read_text()) if TIMES.exists() else {}
    for folder in args.folders:
        times.update(measure(folder, args.command, args.machine))
    TIMES.write_text(json.dumps(times, indent=1, sort_keys=True) + "\n")
    DOCS.write_text(with_table(DOCS.read_text(), times))
    for line in table(times):
        print(line)


if __name__ == "__main__":
    main()
