"""Many runs as one: each member of a group trains as the same run alone would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import Tensor, nn

from memrnn.models.grouped import Grouped
from memrnn.training import (
    LoopResult,
    LoopSettings,
    StepReport,
    load_checkpoint,
    make_optimizer,
    train_group,
    train_loop,
)

F, H, BATCH = 2, 5, 4
LRS = [0.05, 0.01, 0.03]
DECAY = 0.01
NAMES = ["adam", "adamw", "rmsprop", "sgd"]


class Elman(nn.Module):
    """A tiny causal Elman network, (B, T, F) -> (B, T, 1): ``Grouped`` runs it under vmap."""

    input_size = F
    accepts = ("vectors",)

    def __init__(self, seed: int) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(seed)
        shapes = {"w_in": (H, F), "w_rec": (H, H), "b": (H,), "w_out": (1, H)}
        for name, shape in shapes.items():
            weight = torch.randn(shape, generator=gen, dtype=torch.float64) * 0.5
            setattr(self, name, nn.Parameter(weight))

    def forward(self, x: Tensor) -> Tensor:
        h = x.new_zeros(x.shape[0], H)
        outputs = []
        for t in range(x.shape[1]):
            h = torch.tanh(x[:, t] @ self.w_in.T + h @ self.w_rec.T + self.b)
            outputs.append(h @ self.w_out.T)
        return torch.stack(outputs, dim=1)


class TorchElman(nn.Module):
    """The same network on ``nn.RNN``, which vmap cannot run: ``Grouped`` runs its
    members one after another."""

    input_size = F
    accepts = ("vectors",)

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rnn = nn.RNN(F, H, batch_first=True, dtype=torch.float64)
        self.out = nn.Linear(H, 1, dtype=torch.float64)
        gen = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=gen, dtype=torch.float64) * 0.5)

    def forward(self, x: Tensor) -> Tensor:
        out: Tensor = self.out(self.rnn(x)[0])
        return out


class ToySteps:
    """Sequences of random lengths; the target is a running sum. The dev loss rises
    after ``worse_after`` evaluations, so that best weights and early stops happen."""

    def __init__(
        self,
        seed: int,
        worse_after: int = 0,
        batch: int = BATCH,
        kind: type[nn.Module] = Elman,
        dtype: torch.dtype = torch.float64,
    ) -> None:
        self.model = kind(seed)
        self.worse_after, self.evaluations = worse_after, 0
        self.batch, self.dtype = batch, dtype
        self.dev = self.training_batch(np.random.default_rng(100 + seed), length=8, batch=64)

    def training_batch(
        self, rng: np.random.Generator, length: int = 0, batch: int = 0
    ) -> tuple[Tensor, Tensor]:
        length = length or int(rng.integers(2, 7))
        x = torch.from_numpy(rng.standard_normal((batch or self.batch, length, F)))
        x = x.to(self.dtype)
        return x, 0.3 * x.cumsum(1)[..., :1]

    def inputs(self, batch: tuple[Tensor, Tensor]) -> Tensor:
        return batch[0]

    def loss_of(self, outputs: Tensor, batch: tuple[Tensor, Tensor]) -> Tensor:
        return torch.mean((outputs - batch[1]) ** 2)

    def loss(self, batch: tuple[Tensor, Tensor]) -> Tensor:
        return self.loss_of(self.model(self.inputs(batch)), batch)

    def evaluate(self, rng: np.random.Generator, step: int) -> dict[str, float]:
        self.evaluations += 1
        value = float(self.loss(self.dev))  # a fixed set: a smooth dev loss
        if self.worse_after and self.evaluations > self.worse_after:
            value += float(self.evaluations)
        return {"dev": value}


def _eval_rng(k: int) -> Callable[[int], np.random.Generator]:
    return lambda step: np.random.default_rng([20 + k, step])


def _optimizer(steps: ToySteps, k: int, name: str = "adam") -> torch.optim.Optimizer:
    return make_optimizer(name, steps.model.parameters(), LRS[k], DECAY)


def _together(
    members: list[ToySteps], settings: LoopSettings, optimizer: str = "adam", **kwargs: Any
) -> tuple[list[LoopResult], Grouped]:
    """train_group with the test's optimisers and generators, unless ``kwargs`` name others."""
    group = kwargs.pop("group", None) or Grouped([m.model for m in members])
    count = len(members)
    kwargs = {
        "optimizers": [_optimizer(m, k, optimizer) for k, m in enumerate(members)],
        "data_rngs": [np.random.default_rng(10 + k) for k in range(count)],
        "eval_rngs": [_eval_rng(k) for k in range(count)],
        **kwargs,
    }
    return train_group(members, group, settings, **kwargs), group


def _alone(
    steps: ToySteps, k: int, settings: LoopSettings, optimizer: str = "adam", **kwargs: Any
) -> LoopResult:
    return train_loop(
        steps,
        _optimizer(steps, k, optimizer),
        settings,
        data_rng=np.random.default_rng(10 + k),
        eval_rng=_eval_rng(k),
        **kwargs,
    )


def _close(a: Any, b: Any) -> None:
    torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-12)


def _same_result(a: LoopResult, b: LoopResult) -> None:
    assert (a.steps_done, a.stopped_early, a.best_step) == (
        b.steps_done,
        b.stopped_early,
        b.best_step,
    )
    assert [h[:2] for h in a.history] == [h[:2] for h in b.history]
    _close([h[2] for h in a.history], [h[2] for h in b.history])
    _close(a.metrics, b.metrics)


def _same_weights(a: nn.Module, b: nn.Module) -> None:
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        _close(p.detach(), q.detach())


def _equal_weights(a: nn.Module, b: nn.Module) -> None:
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(p, q)


@pytest.mark.parametrize("optimizer", NAMES)
@pytest.mark.parametrize(
    "settings",
    [
        LoopSettings(steps=30, eval_every=10, monitor="dev"),
        LoopSettings(steps=25, eval_every=10, monitor="dev", clip=0.05),
        LoopSettings(steps=40, eval_every=5, monitor="dev", keep_best=True),
    ],
)
def test_each_member_trains_as_the_same_run_alone(settings: LoopSettings, optimizer: str) -> None:
    """Step by step: the same loss, gradients and weights as the run alone."""
    seen: dict[tuple[int, int], tuple[float, list[Tensor], list[Tensor]]] = {}
    worse = [0, 2, 0] if settings.keep_best else [0, 0, 0]
    members = [ToySteps(k, worse[k]) for k in range(3)]

    def record(k: int, report: StepReport) -> None:  # member k's own leaves after each step
        params = list(members[k].model.parameters())
        grads = [p.grad.clone() for p in params if p.grad is not None]
        seen[k, report.step] = (report.loss, grads, [p.detach().clone() for p in params])

    results, group = _together(members, settings, optimizer, on_step=record)
    assert group.vmapped
    for k in range(3):
        alone = ToySteps(k, worse[k])

        def compare(report: StepReport, k: int = k, alone: ToySteps = alone) -> None:
            loss, grads, params = seen[k, report.step]
            _close(report.loss, loss)
            _close([p.grad for p in alone.model.parameters()], grads)
            _close([p.detach() for p in alone.model.parameters()], params)

        _same_result(results[k], _alone(alone, k, settings, optimizer, on_step=compare))
        assert len(seen) == 3 * settings.steps  # every step of every member was compared
        _same_weights(members[k].model, alone.model)
    if settings.keep_best:
        assert results[1].best_step < results[1].steps_done


def test_members_that_vmap_cannot_run_train_as_runs_alone() -> None:
    settings = LoopSettings(steps=20, eval_every=5, monitor="dev", clip=0.5)
    members = [ToySteps(k, kind=TorchElman) for k in range(3)]
    results, group = _together(members, settings)
    assert not group.vmapped  # the members' forward runs one after another
    for k in range(3):
        alone = ToySteps(k, kind=TorchElman)
        _same_result(results[k], _alone(alone, k, settings))
        _same_weights(members[k].model, alone.model)


def test_a_member_that_stops_early_stays_at_its_stop_while_the_others_go_on() -> None:
    settings = LoopSettings(steps=30, eval_every=5, monitor="dev", patience=2)
    members = [ToySteps(0), ToySteps(1, worse_after=1), ToySteps(2)]
    at_stop: list[Tensor] = []

    def record(k: int, report: StepReport) -> None:
        if k == 1 and report.step == 15:
            at_stop.extend(p.detach().clone() for p in members[1].model.parameters())

    results, _ = _together(members, settings, on_step=record)
    assert results[1].stopped_early and results[1].steps_done == 15
    assert [r.steps_done for r in (results[0], results[2])] == [30, 30]
    for p, q in zip(members[1].model.parameters(), at_stop, strict=True):
        assert torch.equal(p.detach(), q)
    for k in range(3):
        alone = ToySteps(k, worse_after=1 if k == 1 else 0)
        _same_result(results[k], _alone(alone, k, settings))
        _same_weights(members[k].model, alone.model)


def test_on_step_reports_each_step_of_each_member_still_training() -> None:
    settings = LoopSettings(steps=20, eval_every=5, monitor="dev", patience=2)
    members = [ToySteps(0), ToySteps(1, worse_after=1)]
    reports: list[tuple[int, StepReport]] = []
    results, _ = _together(members, settings, on_step=lambda k, r: reports.append((k, r)))
    assert results[1].steps_done == 15
    expected = [(k, s) for s in range(1, 21) for k in (0, 1) if k == 0 or s <= 15]
    assert [(k, r.step) for k, r in reports] == expected
    assert all(r.steps == 20 and r.steps_per_second > 0 for _, r in reports)
    for k, result in enumerate(results):
        mine = [r for j, r in reports if j == k]
        evaluated = {r.step: r.metrics for r in mine if r.metrics is not None}
        assert list(evaluated) == sorted({s for s, _, _ in result.history})
        for step, metrics in evaluated.items():
            assert metrics == {name: v for s, name, v in result.history if s == step}
        train_loss = [v for s, name, v in result.history if name == "train_loss"]
        assert (
            train_loss
            == [np.mean([r.loss for r in mine[i : i + 5]]) for i in (0, 5, 10, 15)][
                : len(train_loss)
            ]
        )


class _Crash(Exception):
    pass


def _crash_at(step: int) -> Callable[[int, StepReport], None]:
    def crash(k: int, report: StepReport) -> None:
        if report.step == step:
            raise _Crash

    return crash


def _first(steps: list[int]) -> Callable[[StepReport], None]:
    return lambda report: None if steps else steps.append(report.step)


def _evaluations(path: Path) -> int:
    return len({s for s, _, _ in load_checkpoint(path)["history"]})


SETTINGS = LoopSettings(
    steps=40, eval_every=5, checkpoint_every=5, monitor="dev", patience=2, keep_best=True
)


def _fresh(paths: list[Path] | None = None) -> list[ToySteps]:
    members = [ToySteps(0), ToySteps(1, worse_after=2), ToySteps(2)]
    for steps, path in zip(members, paths or [], strict=False):
        steps.evaluations = _evaluations(path)  # the dev-loss drift resumes with the file
    return members


@pytest.mark.parametrize("crash_at", [12, 33])
def test_resuming_a_group_gives_the_uninterrupted_one(tmp_path: Path, crash_at: int) -> None:
    whole_members = _fresh()
    whole, _ = _together(whole_members, SETTINGS)
    assert whole[1].stopped_early and whole[1].steps_done < 30  # it stopped before 33
    paths = [tmp_path / f"member{k}.pt" for k in range(3)]
    with pytest.raises(_Crash):
        _together(_fresh(), SETTINGS, checkpoints=paths, on_step=_crash_at(crash_at))
    members = _fresh(paths)
    resumed, _ = _together(members, SETTINGS, checkpoints=paths, resume=True)
    for k in range(3):
        _same_result(resumed[k], whole[k])
        _same_weights(members[k].model, whole_members[k].model)


def test_a_member_restored_stopped_early_does_not_split_the_others(tmp_path: Path) -> None:
    paths = [tmp_path / f"member{k}.pt" for k in range(3)]
    with pytest.raises(_Crash):  # member 1 stopped at step 20; 0 and 2 are at 30 in their files
        _together(_fresh(), SETTINGS, checkpoints=paths, on_step=_crash_at(33))
    order: list[int] = []
    record = lambda k, r: order.append(k)  # noqa: E731
    _together(_fresh(paths), SETTINGS, checkpoints=paths, resume=True, on_step=record)
    assert order == [0, 2] * 5 + [2] * 5  # steps 31 .. 35 together; member 0 stops at 35


@pytest.mark.parametrize("optimizer", NAMES)
def test_a_member_checkpoint_resumes_alone_with_train_loop(tmp_path: Path, optimizer: str) -> None:
    paths = [tmp_path / f"member{k}.pt" for k in range(3)]
    with pytest.raises(_Crash):
        _together(_fresh(), SETTINGS, optimizer, checkpoints=paths, on_step=_crash_at(13))
    steps = ToySteps(2)
    steps.evaluations = _evaluations(paths[2])
    first: list[int] = []  # the step it resumes at: one after the file's
    resumed = _alone(
        steps, 2, SETTINGS, optimizer, checkpoint=paths[2], resume=True, on_step=_first(first)
    )
    assert first == [11]
    whole = ToySteps(2)
    _same_result(resumed, _alone(whole, 2, SETTINGS, optimizer))
    _same_weights(steps.model, whole.model)


def test_members_at_different_steps_are_trained_one_by_one(tmp_path: Path) -> None:
    paths = [tmp_path / f"member{k}.pt" for k in range(3)]
    with pytest.raises(_Crash):
        _together(_fresh(), SETTINGS, checkpoints=paths, on_step=_crash_at(12))
    steps = ToySteps(0)
    steps.evaluations = _evaluations(paths[0])
    with pytest.raises(_Crash):  # member 0 alone gets further: its file is at step 15
        _alone(
            steps,
            0,
            SETTINGS,
            checkpoint=paths[0],
            resume=True,
            on_step=lambda r: _crash_at(17)(0, r),
        )
    order: list[int] = []
    members = _fresh(paths)
    resumed, _ = _together(
        members, SETTINGS, checkpoints=paths, resume=True, on_step=lambda k, r: order.append(k)
    )
    assert order == sorted(order) and set(order) == {0, 1, 2}  # member by member
    for k in range(3):
        whole = _fresh()[k]
        _same_result(resumed[k], _alone(whole, k, SETTINGS))
        _same_weights(members[k].model, whole.model)


def test_a_non_finite_loss_names_the_member() -> None:
    members = [ToySteps(0), ToySteps(1)]
    with torch.no_grad():
        members[1].model.w_out.fill_(float("nan"))
    with pytest.raises(FloatingPointError, match="member 1: training loss became nan at step 1"):
        _together(members, LoopSettings(steps=3, monitor="dev"))


SHORT = LoopSettings(steps=3, monitor="dev")


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _both(members: list[ToySteps]) -> torch.optim.Optimizer:
    """One optimiser over member 1's parameters and member 0's."""
    params = [*members[1].model.parameters(), *members[0].model.parameters()]
    return make_optimizer("adam", params, 0.1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda ms: {"optimizers": [_optimizer(ms[0], 0)]},
            "optimizers: expected 2, one per member, got 1",
        ),
        (lambda ms: {"data_rngs": [_rng(0)]}, "data_rngs: expected 2, one per member, got 1"),
        (lambda ms: {"eval_rngs": [_eval_rng(0)] * 3}, "eval_rngs: expected 2, one per member"),
        (lambda ms: {"checkpoints": [None]}, "checkpoints: expected 2, one per member, got 1"),
        (
            lambda ms: {"group": Grouped([ms[0].model, ms[1].model, Elman(2)])},
            r"group\.members: expected 2, one per member, got 3",
        ),
        (
            lambda ms: {"group": Grouped([ms[0].model, Elman(1)])},
            r"members: member 1's model has not group\.members\[1\]'s parameters",
        ),
        (
            lambda ms: {"data_rngs": [_rng(0), 1]},
            r"data_rngs\[1\]: expected a numpy\.random\.Generator, got 1",
        ),
        (
            lambda ms: {"eval_rngs": [_eval_rng(0), 5]},
            r"eval_rngs\[1\]: expected a function of the step, got 5",
        ),
        (lambda ms: {"data_rngs": [_rng(0)] * 2}, "data_rngs: members 0 and 1 share one"),
        (
            lambda ms: {"checkpoints": [Path("a.pt"), Path("./a.pt")]},
            "checkpoints: members 0 and 1 share one",
        ),
        (
            lambda ms: {"optimizers": [_optimizer(ms[0], 0)] * 2},
            "optimizers: members 0 and 1 share one",
        ),
        (
            lambda ms: {"optimizers": [_optimizer(ms[0], 0), _optimizer(ms[0], 1)]},
            r"optimizers\[1\]: it steps parameters that are not member 1's",
        ),
        (
            lambda ms: {"optimizers": [_optimizer(ms[0], 0), _both(ms)]},
            r"optimizers\[1\]: it steps parameters that are not member 1's",
        ),
    ],
)
def test_bad_arguments_are_named(
    change: Callable[[list[ToySteps]], dict[str, Any]], message: str
) -> None:
    members = [ToySteps(0), ToySteps(1)]
    with pytest.raises(ValueError, match=message):
        _together(members, SHORT, **change(members))


def test_a_group_of_no_members_is_refused() -> None:
    with pytest.raises(ValueError, match="members: expected at least one run, got none"):
        train_group([], Grouped([Elman(0)]), SHORT, optimizers=[], data_rngs=[], eval_rngs=[])


@pytest.mark.parametrize(
    ("other", "message"),
    [
        (ToySteps(1, batch=3), r"members: their batches must be of one size \(dim 0\)"),
        (
            ToySteps(1, dtype=torch.float32),
            r"members: member 1's inputs are \(4, \d, 2\) torch\.float32 on cpu",
        ),
    ],
)
def test_members_whose_batches_cannot_be_stacked_are_refused(other: ToySteps, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _together([ToySteps(0), other], SHORT)


def test_a_group_with_no_step_to_take_evaluates_each_member_once() -> None:
    settings = LoopSettings(steps=0, monitor="dev")
    results, _ = _together([ToySteps(0), ToySteps(1)], settings)
    for k, result in enumerate(results):
        assert result.steps_done == 0 and [h[0] for h in result.history] == [0]
        _same_result(result, _alone(ToySteps(k), k, settings))


class CountingSteps(ToySteps):
    """A ToySteps that counts the batches it draws."""

    def __init__(self, seed: int, worse_after: int = 0) -> None:
        self.draws = 0
        super().__init__(seed, worse_after)
        self.draws = 0  # the dev set is not a training batch

    def training_batch(
        self, rng: np.random.Generator, length: int = 0, batch: int = 0
    ) -> tuple[Tensor, Tensor]:
        self.draws += 1
        return super().training_batch(rng, length, batch)


def _one_stream(
    seeds: list[int], settings: LoopSettings, worse: list[int], **kwargs: Any
) -> tuple[list[LoopResult], list[CountingSteps], list[np.random.Generator]]:
    """Members trained on generators seeded ``seeds`` (equal seeds: one stream)."""
    members = [CountingSteps(k, worse[k]) for k in range(len(seeds))]
    rngs = [np.random.default_rng(seed) for seed in seeds]
    results, _ = _together(members, settings, data_rngs=rngs, **kwargs)
    return results, members, rngs


@pytest.mark.parametrize("worse", [[0, 0, 0], [1, 0, 0], [0, 1, 0]])
def test_members_of_one_stream_draw_each_batch_once_and_train_as_alone(
    worse: list[int],
) -> None:
    """Members 0 and 1 start from one seed: with batches_from, 1 takes 0's batches while
    both train, and draws its own once 0 has stopped (worse[0]) or after 1 has (worse[1]);
    results, weights and generators end as when each draws its own."""
    settings = LoopSettings(steps=30, eval_every=5, monitor="dev", patience=1)
    seeds = [10, 10, 12]
    shared, members, rngs = _one_stream(seeds, settings, worse, batches_from=[0, 0, 2])
    own, members_own, rngs_own = _one_stream(seeds, settings, worse)
    for k in range(3):
        _same_result(shared[k], own[k])
        assert [h[2] for h in shared[k].history] == [h[2] for h in own[k].history]
        _equal_weights(members[k].model, members_own[k].model)
        assert rngs[k].bit_generator.state == rngs_own[k].bit_generator.state
    steps = [r.steps_done for r in shared]
    assert [m.draws for m in members_own] == steps
    # member 1 drew only at the steps that member 0 did not take
    assert members[1].draws == max(0, steps[1] - steps[0])
    assert [members[0].draws, members[2].draws] == [steps[0], steps[2]]
    if any(worse):
        assert len(set(steps[:2])) == 2  # one of the two stopped before the other


def test_members_whose_generators_differ_draw_their_own() -> None:
    """batches_from says how a member draws, not that its generator starts in the same
    state: members on different streams each draw their own, as without it."""
    settings = LoopSettings(steps=12, eval_every=4, monitor="dev")
    shared, members, _ = _one_stream([10, 11], settings, [0, 0], batches_from=[0, 0])
    own, _, _ = _one_stream([10, 11], settings, [0, 0])
    assert [m.draws for m in members] == [12, 12]
    for a, b in zip(shared, own, strict=True):
        _same_result(a, b)


@pytest.mark.parametrize(
    ("batches_from", "message"),
    [
        ([0], "batches_from: expected 2, one per member, got 1"),
        ([0, 2], r"batches_from\[1\]: expected the index of member 1 or of one before it"),
        ([1, 1], r"batches_from\[0\]: expected the index of member 0 .* got 1"),
        ([0, -1], r"batches_from\[1\]: .* got -1"),
        ([0, True], r"batches_from\[1\]: .* got True"),
        ([0, 0.0], r"batches_from\[1\]: .* got 0\.0"),
    ],
)
def test_bad_batches_from_is_named(batches_from: list[Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _together([ToySteps(0), ToySteps(1)], SHORT, batches_from=batches_from)
