"""The training loop on its own: evaluation points, the best weights, margins, the
schedule, and resuming mid-run with all of them."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from memrnn.training import LoopSettings, StepReport
from tests.training.regression import Regression, run


def test_evaluates_every_so_often_and_after_the_last_step() -> None:
    result, _ = run(Regression(), LoopSettings(steps=25, eval_every=10, monitor="dev"))
    assert sorted({s for s, _, _ in result.history}) == [10, 20, 25]
    assert result.steps_done == 25 and not result.stopped_early
    assert {"dev", "train_loss"} <= set(result.metrics)


def test_keep_best_ends_with_the_best_weights_not_the_last() -> None:
    settings = LoopSettings(steps=60, eval_every=10, monitor="dev", keep_best=True)
    steps = Regression(worse_after=3)
    result, _ = run(steps, settings)
    assert result.best_step == 30
    again = Regression(worse_after=3)
    run(again, LoopSettings(steps=30, eval_every=10, monitor="dev"))
    for a, b in zip(steps.model.parameters(), again.model.parameters(), strict=True):
        assert torch.equal(a, b)


def test_patience_counts_evaluations_without_an_improvement_beyond_the_margin() -> None:
    settings = LoopSettings(steps=100, eval_every=10, monitor="dev", patience=2, margin=1e9)
    result, _ = run(Regression(), settings)
    # nothing beats the first evaluation by 1e9: stop at the third
    assert result.stopped_early and result.steps_done == 30 and result.best_step == 10


def test_the_schedule_sees_every_evaluation() -> None:
    settings = LoopSettings(steps=60, eval_every=10, monitor="dev")
    _, optimizer = run(Regression(worse_after=2), settings, schedule="plateau")
    # the dev loss rises at evaluations 3..6: the rate is halved at each of them
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.05 * 0.5**4)


class _Crash(Exception):
    pass


@pytest.mark.parametrize("crash_at", [20, 35, 60])
def test_resuming_gives_the_uninterruptedrun(tmp_path: Path, crash_at: int) -> None:
    settings = LoopSettings(
        steps=60, eval_every=10, checkpoint_every=10, monitor="dev", keep_best=True, patience=3
    )
    whole_steps = Regression(worse_after=3)
    whole, whole_opt = run(whole_steps, settings, schedule="plateau")

    def crash(report: StepReport) -> None:
        if report.step == crash_at:
            raise _Crash

    path = tmp_path / "loop.pt"
    with pytest.raises(_Crash):
        run(Regression(worse_after=3), settings, schedule="plateau", checkpoint=path, on_step=crash)
    # a fresh process; its dev-loss drift resumes where the last checkpoint was written
    steps = Regression(worse_after=3)
    steps.evaluations = (crash_at - 1) // 10  # the checkpoint before the crash
    resumed, opt = run(steps, settings, schedule="plateau", checkpoint=path, resume=True)
    assert resumed.metrics == whole.metrics and resumed.history == whole.history
    assert resumed.best_step == whole.best_step and resumed.stopped_early == whole.stopped_early
    assert opt.param_groups[0]["lr"] == whole_opt.param_groups[0]["lr"]
    for a, b in zip(steps.model.parameters(), whole_steps.model.parameters(), strict=True):
        assert torch.equal(a, b)


def test_a_monitor_the_run_does_not_report_is_named() -> None:
    with pytest.raises(ValueError, match="monitor: the run reports no metric 'accuracy'"):
        run(Regression(), LoopSettings(steps=3, monitor="accuracy"))


def test_a_non_finite_loss_stops_therun() -> None:
    steps = Regression()
    steps.w = torch.full((3, 1), float("nan"))
    with pytest.raises(FloatingPointError, match="at step 1"):
        run(steps, LoopSettings(steps=3, monitor="dev"))
