"""Every registered model, built for every registered task from the task's sizes
(``build_model_for``), trains one step on a sampled batch: outputs (B, T, output_size),
a finite ``task.loss``, gradients at its parameters, and an optimiser step that moves
them. Both registries are read when the tests are collected, so a newly registered model
or task is covered without a change here."""

from __future__ import annotations

import functools
from typing import ClassVar

import numpy as np
import pytest
import torch
from torch import Tensor, nn

from memrnn.models import build_model_for, model_names, register_model, registered_model
from memrnn.models import registry as registry_module
from memrnn.models.checks import InputKind
from memrnn.tasks import Task, make_task, task_names
from tests.models.tiny import tiny_options

# Trained by teacher forcing of the stack actions alone (memrnn.estimators.DeepStackMachine):
# the outputs follow the heads' argmax decisions, through which no gradient flows.
NOT_TRAINED_BY_THE_OUTPUTS = {"deep_stack_machine": ("c_pop.", "c_push.", "c_shift.")}


@functools.cache
def _task(name: str) -> Task:
    return make_task(name)


def _short(task: Task) -> tuple[int, int]:
    """Short training lengths, a little past the shortest: every sequence has a few
    steps, so that what a memory stores at one step is read at a later one (a model
    whose memory is never read gets no gradient at its writes)."""
    low, high = task.train_lengths
    return min(high, low + 2), min(high, low + 4)


@pytest.mark.parametrize("task_name", task_names())
@pytest.mark.parametrize("model_name", model_names())
def test_every_model_trains_one_step_on_every_task(model_name: str, task_name: str) -> None:
    task = _task(task_name)
    options = tiny_options(model_name)
    if task.input_kind not in registered_model(model_name).accepts:
        with pytest.raises(ValueError, match=f"task: {model_name!r} reads"):
            build_model_for(model_name, task, **options)
        return
    torch.manual_seed(0)
    model = build_model_for(model_name, task, **options)
    batch = task.sample_batch(np.random.default_rng(0), 2, *_short(task))
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

    outputs = model(batch.inputs)
    assert outputs.shape == (*batch.mask.shape, task.output_size)
    loss = task.loss(outputs, batch)
    assert loss.dim() == 0 and bool(torch.isfinite(loss))
    loss.backward()
    untrained = NOT_TRAINED_BY_THE_OUTPUTS.get(model_name, ())
    for key, param in model.named_parameters():
        if key.startswith(untrained):
            assert param.grad is None, key
        else:
            assert param.grad is not None and bool(torch.isfinite(param.grad).all()), key
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())
    optimizer.step()
    assert any(not torch.equal(p, b) for p, b in zip(model.parameters(), before, strict=True))
    assert set(task.score(model(batch.inputs), batch)) >= {"accuracy"}


class _TokensOnly(nn.Module):
    """A model that reads token ids alone, as another package might register one."""

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens",)

    def __init__(self, input_size: int, output_size: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(input_size, output_size)

    def forward(self, tokens: Tensor) -> Tensor:
        out: Tensor = self.embed(tokens)
        return out


def test_a_model_is_refused_a_task_whose_inputs_it_does_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry_module, "_REGISTRY", dict(registry_module._REGISTRY))
    register_model("tokens_only", _TokensOnly)
    model = build_model_for("tokens_only", make_task("copy"))
    assert (
        isinstance(model, _TokensOnly)
        and model.embed.num_embeddings == make_task("copy").input_size
    )
    with pytest.raises(ValueError, match=r"task: 'tokens_only' reads tokens, not the vectors of"):
        build_model_for("tokens_only", make_task("rsm_latch"))


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match=r"task: expected a memrnn\.tasks\.Task, got str"):
        build_model_for("gru", "rsm_latch")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"name: expected one of alstm, deep_lstm, "):
        build_model_for("no_such_model", make_task("rsm_latch"))
    with pytest.raises(ValueError, match="hidden_size: expected an int >= 1, got 0"):
        build_model_for("gru", make_task("rsm_latch"), hidden_size=0)
