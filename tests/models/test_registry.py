"""The model registry: memrnn's models by name, called the same way on token ids and
their one-hot vectors; the registry's own checks. Every model trained one step on every
task: test_models_by_tasks.py."""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

from memrnn.models import (
    GRUNetwork,
    MemoryAugmentedLSTM,
    Trace,
    build_model,
    model_names,
    register_model,
    registered_model,
)
from memrnn.models import registry as registry_module
from tests.models.tiny import tiny_options

NAMES = [
    "alstm",
    "deep_lstm",
    "deep_stack_machine",
    "deque_lstm",
    "fast_weights",
    "gru",
    "irnn",
    "lstm",
    "memory_rnn",
    "queue_lstm",
    "rnn",
    "stack_lstm",
    "stack_rnn",
    "tape_rnn",
    "transformer",
]


def _tiny(name: str, input_size: int = 5, output_size: int = 3) -> nn.Module:
    torch.manual_seed(0)
    return build_model(name, input_size, output_size, **tiny_options(name))


def test_the_papers_models_are_registered() -> None:
    assert model_names() == NAMES
    assert model_names("vectors") == model_names("tokens") == NAMES


@pytest.mark.parametrize("name", [n for n in NAMES if hasattr(registered_model(n).model, "trace")])
def test_traces_give_the_outputs_and_the_gates_of_every_step(name: str) -> None:
    model = _tiny(name)
    tokens = torch.tensor([[0, 4, 2, 2, 1, 3], [3, 1, 0, 4, 4, 2]])
    trace = model.trace(tokens)
    assert isinstance(trace, Trace)
    torch.testing.assert_close(trace.outputs, model(tokens))
    assert trace.push.shape == trace.pop.shape == (2, 6)


@pytest.mark.parametrize("name", model_names("vectors"))
def test_vector_models_read_token_ids_as_one_hot_vectors(name: str) -> None:
    model = _tiny(name)
    tokens = torch.tensor([[0, 4, 2, 2], [3, 1, 0, 4]])
    vectors = torch.nn.functional.one_hot(tokens, 5).float()
    with torch.no_grad():
        torch.testing.assert_close(model(vectors), model(tokens))
        if hasattr(model, "trace"):
            torch.testing.assert_close(model.trace(vectors).push, model.trace(tokens).push)


def test_defaults_are_small_and_options_override_them() -> None:
    stack = build_model("stack_lstm", 7, 4)
    assert isinstance(stack, MemoryAugmentedLSTM)
    assert stack.core.memory_kind == "stack" and stack.core.hidden_size == 32
    assert build_model("deque_lstm", 7, 4, hidden_size=6).core.hidden_size == 6  # type: ignore[union-attr]
    assert registered_model("gru").defaults == {"hidden_size": 32}
    with pytest.raises(ValueError, match="memory: 'stack_lstm' stands for memory='stack'"):
        build_model("stack_lstm", 7, 4, memory="queue")
    with pytest.raises(ValueError, match="name: expected one of alstm, "):
        build_model("no_such_model", 7, 4)
    with pytest.raises(ValueError, match="output_size: expected an int >= 1, got 0"):
        build_model("gru", 7, 0)


def test_an_option_the_model_does_not_take_is_named_with_those_it_takes() -> None:
    with pytest.raises(
        ValueError,
        match="memory_width: 'deep_lstm' takes no such option; its options are "
        "embedding, hidden_size, layers",
    ):
        build_model("deep_lstm", 7, 4, memory_width=16)
    with pytest.raises(ValueError, match="its options are bottom_push_bias, embedding, "):
        build_model("stack_lstm", 7, 4, hiden_size=8)  # memory is fixed: not offered


def test_register_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry_module, "_REGISTRY", dict(registry_module._REGISTRY))
    entry = register_model("small_gru", GRUNetwork, defaults={"hidden_size": 2})
    assert entry.accepts == ("tokens", "vectors") and "small_gru" in model_names("vectors")
    assert build_model("small_gru", 3, 1)(torch.tensor([[0, 2]])).shape == (1, 2, 1)
    with pytest.raises(ValueError, match="name: 'small_gru' is already registered"):
        register_model("small_gru", GRUNetwork)
    with pytest.raises(TypeError, match="model: expected an ``accepts`` attribute"):
        register_model("linear", nn.Linear)
    with pytest.raises(ValueError, match=r"defaults: \['memory'\] are fixed already"):
        register_model("odd", MemoryAugmentedLSTM, fixed={"memory": "stack"},
                       defaults={"memory": "queue"})  # fmt: skip
    with pytest.raises(ValueError, match="accepts: expected one of"):
        model_names("images")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", ["input_size", "output_size"])
@pytest.mark.parametrize("bad", [0, -3, True, 2.0, None])
def test_every_model_refuses_bad_sizes_by_name(name: str, size: str, bad: object) -> None:
    sizes = {"input_size": 5, "output_size": 3, size: bad}
    with pytest.raises(ValueError, match=rf"\w+: expected an int >= 1, got {bad!r}"):
        build_model(name, sizes["input_size"], sizes["output_size"], **tiny_options(name))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", [5, 9, -1])
def test_every_model_names_an_id_outside_its_vocabulary(name: str, bad: int) -> None:
    tokens = torch.tensor([[0, 4, 2], [1, bad, 3]])
    message = f"inputs: ids must lie in 0 .. 4 (a vocabulary of 5), found {bad}"
    with pytest.raises(ValueError, match=re.escape(message)):
        _tiny(name)(tokens)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 6), (2, 3, 5, 1), (2, 5)])
def test_every_model_names_the_shape_of_vectors_it_expects(
    name: str, shape: tuple[int, ...]
) -> None:
    inputs = torch.zeros(shape)
    with pytest.raises(ValueError, match=re.escape("inputs: expected shape (B, T, 5)")):
        _tiny(name)(inputs)
