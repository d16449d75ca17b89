"""The trask2016 experiment: its runs, its metrics and its tables."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from memrnn.experiments.base import PROFILE_NAMES, Profile, RunContext, RunRecord
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.tables import Printed
from memrnn.experiments.trask2016 import (
    GATE_COLUMNS,
    PAPER,
    VARIANTS,
    AutoencodingStackRNN,
    ReversalRun,
    Trask2016,
    Trask2016Config,
    autoencoder_loss,
    initial_biases,
    stack_use,
)
from memrnn.models.controller import MemoryRNN
from memrnn.runner.train import run, train
from memrnn.tasks.reversal import ReversalTask

CPU = RunContext(torch.device("cpu"))


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_runs_cover_every_variant_and_seed(profile: Profile) -> None:
    runs = Trask2016().runs(profile)
    assert len({spec.key for spec in runs}) == len(runs)
    variants = {spec.tags["variant"] for spec in runs}
    assert variants == set(VARIANTS)
    for spec in runs:
        config = Trask2016Config(
            **{k: tuple(v) if isinstance(v, list) else v for k, v in spec.config.items()}
        )
        config.validate()
        variant = VARIANTS[spec.tags["variant"]]
        assert spec.name == f"{spec.tags['variant']}/seed{spec.tags['seed']}"
        assert dataclasses.asdict(variant) == {
            key: getattr(config, key)
            for key in ("push_bias", "pop_bias", "bias_range", "autoencoder")
        }
        assert spec.profile == profile and spec.seed == config.seed


def _build(variant: str, seed: int = 0, **settings: object) -> ReversalRun:
    """The run of ``variant`` as the runner builds it: torch seeded with the run's seed."""
    config = Trask2016Config(seed=seed, **dataclasses.asdict(VARIANTS[variant]), **settings)  # type: ignore[arg-type]
    torch.manual_seed(seed)
    return Trask2016().build(config, CPU)


def _biases(run: ReversalRun) -> tuple[float, float]:
    return run.model.top.push.bias.item(), run.model.top.pop.bias.item()


@pytest.mark.parametrize(
    ("variant", "push_range", "pop_range"),
    [("naive", (0.1, 0.3), (-0.1, 0.1)), ("tutorial-fix", (1.0, 1.2), (-1.0, -0.8))],
)
def test_biases_are_drawn_as_the_tutorial_draws_them(
    variant: str, push_range: tuple[float, float], pop_range: tuple[float, float]
) -> None:
    # Trask (2016): b_d = rand * 0.2 + 0.1 and b_u = rand * 0.2 - 0.1 for the first
    # controller; rand * 0.2 + 1 and rand * 0.2 - 1 for the fix.
    drawn = [_biases(_build(variant, seed)) for seed in range(5)]
    for push, pop in drawn:
        assert push_range[0] <= push <= push_range[1]
        assert pop_range[0] <= pop <= pop_range[1]
    assert len(set(drawn)) == 5  # a draw per seed, not a constant
    assert _biases(_build(variant, 3)) == drawn[3]  # and the same draw for the same seed
    config = Trask2016Config(**dataclasses.asdict(VARIANTS[variant]))
    many = []
    for seed in range(300):
        torch.manual_seed(seed)
        many.append(initial_biases(config))
    pushes, pops = np.array(many).T
    assert push_range[0] <= pushes.min() < push_range[0] + 0.01  # the whole range
    assert push_range[1] - 0.01 < pushes.max() <= push_range[1]
    assert pop_range[0] <= pops.min() < pop_range[0] + 0.01
    assert pop_range[1] - 0.01 < pops.max() <= pop_range[1]


def test_the_pop_bias_variant_keeps_its_constants() -> None:
    for seed in range(3):
        run = _build("pop-bias", seed)
        assert _biases(run) == (0.0, -1.0)
        assert type(run.model) is MemoryRNN
    assert type(_build("naive").model) is MemoryRNN
    assert type(_build("tutorial-fix").model) is AutoencodingStackRNN


def _tutorial_side_error(x: np.ndarray, xo: np.ndarray, o_prime_x: np.ndarray) -> float:
    """The side task's squared error for one sequence, as the "Hint: Autoencoder" code
    accumulates it: at each step i > 0 both heads' errors against the previous input."""
    total = 0.0
    for i in reversed(range(len(x))):
        if i > 0:
            xo_t_error = x[i - 1] - xo[i]
            x_o_prime_x_t_error = x[i - 1] - o_prime_x[i]
            total += 0.5 * np.sum(xo_t_error**2) + 0.5 * np.sum(x_o_prime_x_t_error**2)
    return total


def test_autoencoder_loss_is_the_tutorials_side_task() -> None:
    data = ReversalTask(4).sample(np.random.default_rng(0), 3, 4)
    gen = torch.Generator().manual_seed(0)
    from_h = torch.rand(data.inputs.shape, generator=gen, dtype=torch.float64).requires_grad_()
    from_o = torch.rand(data.inputs.shape, generator=gen, dtype=torch.float64).requires_grad_()
    inputs = data.inputs.double()
    loss = autoencoder_loss(inputs, from_h, from_o)
    # Each sequence's error divided by its length L = 4, as the tutorial's max_alpha / L,
    # then the mean over the batch.
    expected = np.mean(
        [
            _tutorial_side_error(*(a[b].detach().numpy() for a in (inputs, from_h, from_o))) / 4
            for b in range(3)
        ]
    )
    assert loss.item() == pytest.approx(expected, rel=1e-12)
    # Its gradient is the tutorial's error (x_{t-1} - y_t), negated and scaled by 1/(B L),
    # at every step but the first; the heads' sigmoids add the y (1 - y) of its deltas.
    loss.backward()
    want = torch.zeros_like(inputs)
    want[:, 1:] = -(inputs[:, :-1] - from_h.detach()[:, 1:]) / (3 * 4)
    assert torch.allclose(from_h.grad, want)  # type: ignore[arg-type]
    want[:, 1:] = -(inputs[:, :-1] - from_o.detach()[:, 1:]) / (3 * 4)
    assert torch.allclose(from_o.grad, want)  # type: ignore[arg-type]
    # The targets are the previous inputs, symbols and flags: predicting them is free
    # whatever the first step's outputs.
    perfect = torch.cat([torch.rand_like(inputs[:, :1]), inputs[:, :-1]], dim=1)
    assert float(autoencoder_loss(inputs, perfect, perfect)) == 0.0
    shifted = perfect.clone()
    shifted[1, 5, 2] += 0.5  # one channel of one step of one sequence
    assert float(autoencoder_loss(inputs, shifted, perfect)) == pytest.approx(0.5 * 0.25 / 4 / 3)


def test_autoencoder_loss_names_bad_shapes() -> None:
    inputs = torch.zeros(2, 6, 5)
    with pytest.raises(ValueError, match=r"from_o: expected the inputs' shape \(2, 6, 5\)"):
        autoencoder_loss(inputs, inputs, torch.zeros(2, 6, 4))
    with pytest.raises(ValueError, match="inputs: expected"):
        autoencoder_loss(torch.zeros(2, 1, 5), torch.zeros(2, 1, 5), torch.zeros(2, 1, 5))


def test_the_fix_variant_trains_the_side_task() -> None:
    settings = {"batch_size": 4, "eval_size": 4, "max_length": 4, "long_length": 5}
    run = _build("tutorial-fix", **settings)
    model = run.model
    assert isinstance(model, AutoencodingStackRNN)
    assert model.from_h.bias is None and model.from_o.bias is None
    batch = run.training_batch(np.random.default_rng(0))
    logits, from_h, from_o = model.with_reconstructions(batch.inputs)
    # The step-by-step path is the same controller as the whole-sequence one.
    assert torch.allclose(logits, model(batch.inputs), atol=1e-5)
    reversal = F.cross_entropy(logits.flatten(0, 1), batch.targets.flatten())
    side = autoencoder_loss(batch.inputs, from_h, from_o)
    loss = run.loss(batch)
    assert side.item() > 0.1
    assert loss.item() == pytest.approx((reversal + side).item(), rel=1e-6)

    # The side task's gradient reaches the controller, not only its own heads.
    def grads(objective: torch.Tensor) -> list[torch.Tensor]:
        model.zero_grad()
        objective.backward()
        return [
            torch.zeros_like(p) if p.grad is None else p.grad.clone()
            for p in (model.cell.weight_hh, model.from_h.weight)
        ]

    with_side = grads(run.loss(batch))
    alone = grads(F.cross_entropy(model(batch.inputs).flatten(0, 1), batch.targets.flatten()))
    assert not torch.allclose(with_side[0], alone[0])
    assert with_side[1].abs().sum() > 0 and not alone[1].any()

    # Training with the side task differs from training the same start without it.
    fix = Trask2016Config(**dataclasses.asdict(VARIANTS["tutorial-fix"]), steps=3, **settings)  # type: ignore[arg-type]
    plain = dataclasses.replace(fix, autoencoder=False)
    trained = [train(Trask2016(), c, checkpoint=None) for c in (fix, plain)]
    assert trained[0].metrics["train_loss"] > trained[1].metrics["train_loss"]
    assert trained[0].metrics["loss"] != trained[1].metrics["loss"]


def test_the_other_variants_train_the_reversal_alone() -> None:
    run = _build("naive", batch_size=4, max_length=4)
    batch = run.training_batch(np.random.default_rng(0))
    logits = run.model(batch.inputs)
    reversal = F.cross_entropy(logits.flatten(0, 1), batch.targets.flatten())
    assert run.loss(batch).item() == reversal.item()


def test_stack_use_scores_the_algorithm() -> None:
    assert stack_use(1.0, 0.0, 0.0, 1.0) == 1.0  # push while reading, pop while writing
    assert stack_use(1.0, 0.5, 1.0, 0.5) == 0.0  # the tutorial's "half at a time"
    assert stack_use(0.0, 1.0, 1.0, 0.0) == -1.0  # the opposite
    gates = PAPER["gates"]
    assert gates["naive"]["stack_use"].value == 0.0
    assert gates["naive"]["pop_encode"].value == pytest.approx(0.5169, abs=1e-4)
    assert gates["tutorial-fix"]["push_encode"].value == pytest.approx(0.9971, abs=1e-4)
    assert gates["tutorial-fix"]["stack_use"].value == pytest.approx(0.8665, abs=1e-4)


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="min_length: need 1 <= min_length <= max_length"):
        Trask2016Config(min_length=5, max_length=3).validate()
    with pytest.raises(ValueError, match="cell: expected rnn or lstm, got 'gru'"):
        Trask2016Config(cell="gru").validate()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"bias_range: must not be negative, got -0\.1"):
        Trask2016Config(bias_range=-0.1).validate()
    with pytest.raises(TypeError, match="config: trask2016 needs a Trask2016Config"):
        run(Trask2016(), TrainConfig())


@pytest.mark.parametrize("autoencoder", [False, True])
def test_an_untrained_run_evaluates_every_metric(autoencoder: bool) -> None:
    config = Trask2016Config(eval_size=8, max_length=4, long_length=6, autoencoder=autoencoder)
    torch.manual_seed(0)
    built = Trask2016().build(config, CPU)
    with torch.no_grad():
        metrics = built.evaluate(np.random.default_rng(0))
        artifacts = built.artifacts(np.random.default_rng(1))
    expected = {
        "loss",
        "train_token_acc",
        "train_seq_acc",
        "long_token_acc",
        "long_seq_acc",
        *GATE_COLUMNS,
    }
    assert set(metrics) == expected
    for key in expected - {"loss", "stack_use"}:
        assert 0.0 <= metrics[key] <= 1.0, key
    assert artifacts["lengths"] == list(range(1, 9))
    assert len(artifacts["trace_push"]) == 2 * len(artifacts["trace_sequence"]) == 8


def _record(name: str, seed: int, use: float, long_acc: float) -> RunRecord:
    spec = next(s for s in Trask2016().runs("quick") if s.name == f"{name}/seed{seed}")
    metrics = {key: 0.5 for key in GATE_COLUMNS} | {
        "stack_use": use,
        "long_seq_acc": long_acc,
        "long_token_acc": 1.0,
        "train_token_acc": 1.0,
        "train_seq_acc": 1.0,
    }
    return RunRecord(spec, metrics, {}, "test", 2.0)


def test_tables_average_and_count_over_seeds() -> None:
    records = [
        _record("naive", 0, 0.9, 0.95),
        _record("naive", 1, 0.1, 0.2),
        _record("pop-bias", 0, 0.8, 0.99),
    ]
    tables = {table.name: table for table in Trask2016().tables(records)}
    gates, accuracy, seeds = tables["gates"], tables["accuracy"], tables["seeds"]
    assert gates.rows["naive"]["stack_use"].value == pytest.approx(0.5)
    assert gates.rows["naive"]["stack_use"].paper == Printed(0.0)
    assert gates.rows["naive"]["stack_use"].seeds == (0, 1)
    assert gates.rows["naive"]["stack_use"].wall_seconds == 4.0
    assert gates.rows["pop-bias"]["pop_encode"].paper is None  # the tutorial has no such run
    assert accuracy.rows["naive"]["long_seq_acc"].value == pytest.approx(0.575)
    assert seeds.rows["naive"]["seeds"].value == 2
    assert seeds.rows["naive"]["use the stack"].value == 1
    assert seeds.rows["naive"]["generalise"].value == 1
    assert seeds.rows["pop-bias"]["generalise"].value == 1


def test_configs_round_trip_through_json() -> None:
    config = Trask2016Config(seed=3)
    assert Trask2016Config(**config.to_dict()) == config
    assert dataclasses.asdict(config)["lr"] == 0.01


def test_smoke_report_states_its_scale_and_claims_nothing() -> None:
    experiment = Trask2016()
    smoke = experiment.scale("smoke")
    assert smoke.startswith("1 seed per variant; 20 steps of 10 sequences, lengths 2-3")
    assert "tutorial" not in smoke
    records = [
        RunRecord(spec, {key: 0.5 for key in GATE_COLUMNS} | {"long_seq_acc": 1.0}, {}, "t", 1.0)
        for spec in experiment.runs("smoke")
    ]
    assert experiment.findings(records) == []
    quick = experiment.scale("quick")
    assert quick.startswith("5 seeds per variant; 1500 steps of 50 sequences, lengths 2-6")
    assert "The tutorial trained" in quick
    for text in (experiment.reproduces, smoke, quick):
        assert "seed 0" not in text


def test_quick_findings_name_each_variants_start() -> None:
    records = [
        _record("naive", 0, 0.1, 0.2),
        _record("pop-bias", 0, 0.8, 0.99),
        _record("tutorial-fix", 0, 0.9, 0.95),
    ]
    findings = Trask2016().findings(records)
    assert findings[0].startswith(
        "naive (push bias U(0.1, 0.3), pop bias U(-0.1, 0.1)): 0 of 1 seeds use the stack"
    )
    assert findings[1].startswith("pop-bias (push bias +0, pop bias -1): 1 of 1 seeds")
    assert findings[2].startswith(
        "tutorial-fix (push bias U(1, 1.2), pop bias U(-1, -0.8), autoencoder side task): "
        "1 of 1 seeds use the stack"
    )
