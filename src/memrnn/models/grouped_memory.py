"""The grouped forwards (``memrnn.models.grouped``) of the memory-augmented controllers,
``MemoryRNN`` and the ``MemoryAugmentedLSTM`` of Grefenstette et al. (2015), written for
K members: the same numbers as the generalisation matrix's grouped runs were made with. Their
own forwards also run grouped under ``torch.func.vmap`` (the memory's batching rule,
``memrnn.models.controller.ops``), to rounding (the output layer's weight gradient is
summed in another order).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.models.checks import is_token_ids
from memrnn.models.controller import MemoryRNN
from memrnn.models.controller.sequence import input_bias, linear, run_weights
from memrnn.models.grouped import FORWARDS, GroupedForward, Params, _embed
from memrnn.models.transducer import MemoryAugmentedLSTM


def _memory_rnn_options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, MemoryRNN)
    return (model.memory_kind, model.cell_kind, model.input_size, model.output_size,
            model.hidden_size, model.memory_width, model.output_hidden)  # fmt: skip


def _memory_rnn_ready(model: nn.Module) -> bool:
    return isinstance(model, MemoryRNN) and model.gate_noise == 0


def _memory_rnn_input(model: nn.Module) -> int:
    assert isinstance(model, MemoryRNN)
    return model.input_size


def _memory_rnn_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``MemoryRNN.forward``: token ids read as one-hot vectors, as the model reads them."""
    assert isinstance(model, MemoryRNN)
    w_ih = params["cell.weight_ih"]
    if is_token_ids(inputs):
        inputs = F.one_hot(inputs.long(), model.input_size).to(w_ih.dtype)
    k, b, t_len, _ = inputs.shape
    xw = linear(inputs.flatten(0, 1), w_ih[..., : model.input_size], input_bias(params))
    logits = run_weights(model, params, xw, strengths=False, noise=None).outputs
    return logits.view(k, b, t_len, -1)


def _transducer_options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, MemoryAugmentedLSTM)
    return (model.input_vocab, model.output_vocab, *_memory_rnn_options(model.core))


def _transducer_ready(model: nn.Module) -> bool:
    return isinstance(model, MemoryAugmentedLSTM) and _memory_rnn_ready(model.core)


def _transducer_input(model: nn.Module) -> int:
    assert isinstance(model, MemoryAugmentedLSTM)
    return model.input_vocab


def _transducer_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``MemoryAugmentedLSTM.forward``: the embedding, the controller, tanh and the
    output layer."""
    assert isinstance(model, MemoryAugmentedLSTM)
    core = {name.removeprefix("core."): p for name, p in params.items() if name.startswith("core.")}
    embedded = _embed(params["embed.weight"], inputs)
    k, b, t_len, width = embedded.shape
    xw = linear(embedded.flatten(0, 1), core["cell.weight_ih"][..., :width], input_bias(core))
    o = torch.tanh(run_weights(model.core, core, xw, strengths=False, noise=None).outputs)
    return linear(o, params["output.weight"], params["output.bias"]).view(k, b, t_len, -1)


FORWARDS[MemoryRNN] = GroupedForward(
    _memory_rnn_options, _memory_rnn_ready, _memory_rnn_forward, _memory_rnn_input
)
FORWARDS[MemoryAugmentedLSTM] = GroupedForward(
    _transducer_options, _transducer_ready, _transducer_forward, _transducer_input
)
