"""One trask2016 run: how it starts (the gate biases), what it trains on and how it is
scored."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from memrnn.experiments.base import RunContext
from memrnn.experiments.trask2016 import (
    GATE_COLUMNS,
    VARIANTS,
    AutoencodingStackRNN,
    ReversalRun,
    Trask2016,
    Trask2016Config,
    autoencoder_loss,
    initial_biases,
)
from memrnn.models.controller import MemoryRNN
from memrnn.runner.train import train

CPU = RunContext(torch.device("cpu"))


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


@pytest.mark.parametrize("autoencoder", [False, True])
def test_an_untrained_run_evaluates_every_metric(autoencoder: bool) -> None:
    config = Trask2016Config(eval_size=8, max_length=4, long_length=6, autoencoder=autoencoder)
    torch.manual_seed(0)
    built = Trask2016().build(config, CPU)
    with torch.no_grad():
        metrics = built.evaluate(np.random.default_rng(0), config.steps)
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
