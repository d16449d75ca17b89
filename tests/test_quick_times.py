"""The quick profiles' times: one JSON file, measured from reports, shown by the docs'
table and by `memrnn reproduce` with no name."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from memrnn.cli.commands import quick_minutes, quick_times
from memrnn.experiments.registry import experiment_names
from tests.documented import ROOT

_spec = importlib.util.spec_from_file_location("quick_times", ROOT / "benchmarks/quick_times.py")
assert _spec is not None and _spec.loader is not None
script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(script)


def test_the_docs_table_is_made_from_the_json_file() -> None:
    times = json.loads(script.TIMES.read_text())
    page = script.DOCS.read_text()
    assert script.with_table(page, times) == page, "run python benchmarks/quick_times.py --docs"


def test_every_experiment_of_memrnn_is_measured() -> None:
    assert set(quick_minutes()) == set(experiment_names())
    shown = quick_times()
    for name, minutes in quick_minutes().items():
        assert f"{name} {minutes:g} min" in shown


def _run(experiment: str, status: str, started: float, seconds: float) -> dict[str, object]:
    return {"experiment": experiment, "profile": "quick", "status": status,
            "started": started, "ended": started + seconds, "wall_seconds": seconds,
            "code_version": "abc"}  # fmt: skip


def test_a_report_folder_gives_each_finished_experiments_times(tmp_path: Path) -> None:
    runs = [
        _run("a", "finished", 0.0, 60.0),
        _run("a", "finished", 30.0, 120.0),
        _run("b", "finished", 0.0, 60.0),
        _run("b", "failed", 0.0, 60.0),  # not every run finished: not measured
        {**_run("a", "finished", 0.0, 600.0), "profile": "smoke"},  # another profile
    ]
    (tmp_path / "runs.json").write_text(json.dumps(runs))
    times = script.measure(tmp_path, "make reproduce", "a CPU", {"a": 2, "b": 2})
    assert script.measure(tmp_path, "make reproduce", "a CPU", {"a": 3, "b": 2}) == {}
    assert times == {"a": {"runs": 2, "run_minutes": 3.0, "span_minutes": 2.5, "code": "abc",
                           "command": "make reproduce", "machine": "a CPU"}}  # fmt: skip
    page = f"before\n{script.BEGIN}\nold\n{script.END}\nafter"
    assert script.with_table(page, times).splitlines()[2:4] == script.table(times)[:2]


def test_the_json_file_is_package_data() -> None:
    assert all(value > 0 for value in quick_minutes().values())
    assert "experiments/quick_times.json" in (ROOT / "pyproject.toml").read_text()
