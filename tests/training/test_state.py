"""Resuming from a checkpoint that cannot be used: whatever is wrong with it, it is named in
a warning and moved aside with its contents, nothing of it is applied, and the run starts
over to the very result of a run never interrupted."""

from __future__ import annotations

import os
import pickle
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from memrnn.training import DamagedCheckpointWarning, LoopSettings, StepReport, load_checkpoint
from memrnn.training.checkpoint import save_checkpoint
from tests.training.regression import Regression, run

SETTINGS = LoopSettings(
    steps=40, eval_every=10, checkpoint_every=10, monitor="dev", keep_best=True, patience=3
)
OPTIONS = {"schedule": "plateau", "optimizer": "adam"}


class _Crash(Exception):
    pass


def _checkpoint_of_a_crashed_run(path: Path) -> dict[str, Any]:
    """The checkpoint a run that crashed at step 25 left (written at step 20)."""

    def crash(report: StepReport) -> None:
        if report.step == 25:
            raise _Crash

    with pytest.raises(_Crash):
        run(Regression(worse_after=1), SETTINGS, checkpoint=path, on_step=crash, **OPTIONS)
    return load_checkpoint(path)


def _edited(edit: Callable[[dict[str, Any]], object]) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        saved = _checkpoint_of_a_crashed_run(path)
        edit(saved)
        save_checkpoint(path, saved)

    return damage


def _cut(path: Path) -> None:
    _checkpoint_of_a_crashed_run(path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _garbled(path: Path) -> None:
    _checkpoint_of_a_crashed_run(path)
    data = bytearray(path.read_bytes())
    for i in range(len(data) // 3, 2 * len(data) // 3):
        data[i] ^= 0xA5
    path.write_bytes(bytes(data))


def _folder(path: Path) -> None:
    path.mkdir()
    (path / "inside.txt").write_text("kept")


class Exploit:
    """A pickle that would run code when loaded: it creates the folder named ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (os.makedirs, (str(self.marker),))


DAMAGE: dict[str, tuple[Callable[[Path], object], str]] = {
    "zero bytes": (lambda p: p.write_bytes(b""), "EOFError"),
    "cut short": (_cut, "OSError: \\[Errno 22\\]|RuntimeError"),
    "garbled": (_garbled, ""),
    "a folder": (_folder, "IsADirectoryError"),
    "not a dict": (lambda p: torch.save(torch.zeros(3), p), "holds a Tensor, not a dict"),
    "no optimizer": (_edited(lambda s: s.pop("optimizer")), "it has no 'optimizer'"),
    "a step of text": (_edited(lambda s: s.update(step="20")), "its 'step' is not a count"),
    "a model of other shapes": (
        _edited(lambda s: s["model"].update(weight=torch.zeros(2, 3))),
        r"its 'model'\['weight'\] is \(2, 3\), the model's \(1, 3\)",
    ),
    "a model of other names": (
        _edited(lambda s: s["model"].update(extra=torch.zeros(1))),
        "its 'model' and the model differ in extra",
    ),
    "best weights of other shapes": (
        _edited(lambda s: s["best_weights"].update(bias=torch.zeros(4))),
        r"its 'best_weights'\['bias'\] is \(4,\)",
    ),
    "an optimiser state of other shapes": (
        _edited(lambda s: s["optimizer"]["state"][0].update(exp_avg=torch.zeros(3, 1))),
        r"its 'optimizer' exp_avg of parameter 0 is \(3, 1\), not \(1, 3\)",
    ),
    "another optimiser": (
        _edited(lambda s: s["optimizer"]["param_groups"][0].pop("betas")),
        "its 'optimizer' group 0 has other settings",
    ),
    "another schedule": (
        _edited(lambda s: s.update(schedule={"factor": 0.5})),
        "its 'schedule' is not a state of the run's schedule",
    ),
    "a data generator state of another kind": (
        _edited(lambda s: s.update(data_rng={"bit_generator": "MT19937", "state": {}})),
        "its 'data_rng' is not a PCG64 state",
    ),
    "a torch generator state of another size": (
        _edited(lambda s: s.update(torch_rng=s["torch_rng"][:100])),
        "its 'torch_rng' is not a torch generator state",
    ),
}


def _uninterrupted() -> tuple[Any, Regression, torch.optim.Optimizer]:
    steps = Regression(worse_after=1)
    result, optimizer = run(steps, SETTINGS, **OPTIONS)
    return result, steps, optimizer


def _assert_same_run(a: tuple[Any, Regression, Any], b: tuple[Any, Regression, Any]) -> None:
    assert a[0].metrics == b[0].metrics and a[0].history == b[0].history
    assert a[0].best_step == b[0].best_step and a[0].steps_done == b[0].steps_done
    assert a[2].param_groups[0]["lr"] == b[2].param_groups[0]["lr"]
    for p, q in zip(a[1].model.parameters(), b[1].model.parameters(), strict=True):
        assert torch.equal(p, q)


def _contents(path: Path) -> object:
    if path.is_dir():
        return {p.name: p.read_bytes() for p in path.iterdir()}
    return path.read_bytes()


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_checkpoint_is_moved_aside_and_the_run_starts_over(
    tmp_path: Path, damage: str
) -> None:
    whole = _uninterrupted()
    path = tmp_path / "run.pt"
    make, reason = DAMAGE[damage]
    make(path)
    before = _contents(path)
    steps = Regression(worse_after=1)  # a fresh process: evaluations counted from 0
    with pytest.warns(DamagedCheckpointWarning) as warned:
        result, optimizer = run(steps, SETTINGS, checkpoint=path, resume=True, **OPTIONS)
    (message,) = [str(w.message) for w in warned]
    aside = tmp_path / "run.pt.damaged"
    assert message.startswith(f"{path}: damaged checkpoint (")
    assert f"moved to {aside}, the run starts over" in message
    assert re.search(reason, message)
    assert _contents(aside) == before
    _assert_same_run((result, steps, optimizer), whole)
    assert load_checkpoint(path)["step"] == SETTINGS.steps  # the new run's own checkpoint


def test_a_pickle_that_would_run_code_is_moved_aside_not_run(tmp_path: Path) -> None:
    whole = _uninterrupted()
    marker = tmp_path / "exploited"
    for name, write in [
        ("zipped.pt", lambda p: torch.save({"model": Exploit(marker)}, p)),
        ("raw.pt", lambda p: p.write_bytes(pickle.dumps({"step": Exploit(marker)}, protocol=2))),
    ]:
        path = tmp_path / name
        write(path)
        steps = Regression(worse_after=1)
        with pytest.warns(DamagedCheckpointWarning, match=rf"{name}: damaged checkpoint"):
            result, optimizer = run(steps, SETTINGS, checkpoint=path, resume=True, **OPTIONS)
        assert not marker.exists()
        assert (tmp_path / f"{name}.damaged").exists()
        _assert_same_run((result, steps, optimizer), whole)


def test_a_second_damaged_checkpoint_keeps_the_first(tmp_path: Path) -> None:
    path = tmp_path / "run.pt"
    for n, content in enumerate([b"", b"\x00" * 10]):
        path.write_bytes(content)
        with pytest.warns(DamagedCheckpointWarning, match=r"run\.pt\.damaged(-2)?, the run"):
            run(Regression(worse_after=1), SETTINGS, checkpoint=path, resume=True, **OPTIONS)
        assert path.with_name("run.pt.damaged" + ("-2" if n else "")).read_bytes() == content


def test_a_sound_checkpoint_is_not_moved(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    whole = _uninterrupted()
    path = tmp_path / "run.pt"
    _checkpoint_of_a_crashed_run(path)
    steps = Regression(worse_after=1)
    steps.evaluations = 2  # the checkpoint's, at step 20
    result, optimizer = run(steps, SETTINGS, checkpoint=path, resume=True, **OPTIONS)
    _assert_same_run((result, steps, optimizer), whole)
    assert [p.name for p in tmp_path.iterdir()] == ["run.pt"]
    assert not [w for w in recwarn if issubclass(w.category, DamagedCheckpointWarning)]


def test_a_checkpoint_of_the_other_implementation_resumes(
    tmp_path: Path, recwarn: pytest.WarningsRecorder
) -> None:
    """``foreach`` picks torch's implementation of a step, not its numbers: a checkpoint
    written with the other resumes, and the optimiser keeps its own."""
    whole = _uninterrupted()
    path = tmp_path / "run.pt"
    _edited(lambda s: s["optimizer"]["param_groups"][0].update(foreach=True))(path)
    steps = Regression(worse_after=1)
    steps.evaluations = 2  # the checkpoint's, at step 20
    result, optimizer = run(steps, SETTINGS, checkpoint=path, resume=True, **OPTIONS)
    _assert_same_run((result, steps, optimizer), whole)
    assert optimizer.param_groups[0]["foreach"] is None
    assert not [w for w in recwarn if issubclass(w.category, DamagedCheckpointWarning)]
