"""Trainable sequence models, each built from a task's sizes and called the same way
(``memrnn.models.registry``; ``build_model_for(name, task)`` from a task's sizes):
``model(inputs)`` on token ids (B, T), or vectors (B, T, F) where the model ``accepts``
them (all of memrnn's do), gives per-step outputs (B, T, O); models with memory gates
also have ``trace(inputs)``, a ``Trace`` of the outputs and the gates. The recurrent
ones keep ``nn.LSTM``'s habits (``memrnn.models.state``): ``model(inputs, state)`` starts
from a state, ``model.stream(inputs, state)`` returns (outputs, state after the last
step) to feed the next chunk, ``detach_state`` cuts it for truncated backpropagation;
and they run under ``torch.autocast``, their memories in float32.

Here: the controllers that drive the differentiable memories and the transduction
models built on them (Grefenstette et al. 2015; Trask 2016), the superposition
Stack-RNN (Joulin and Mikolov 2015), the Fast Weights RNN and its baselines (Ba et al.
2016), the GRU and deep stack machine networks of Paassen, Schulz, Hammer (2021), and
the LSTM language model of the Dyck experiments (Hewitt et al. 2020); ``save_model`` and
``load_model`` keep a trained one in a folder (safetensors and JSON, no pickle).
"""

from memrnn.models import zoo  # noqa: F401  (registers memrnn's models by name)
from memrnn.models.baselines import IRNN, AttentionLSTM, ElmanRNN, OneHotLSTM
from memrnn.models.controller import MemoryRNN
from memrnn.models.embedding import InputEmbedding
from memrnn.models.fast_weights import FastWeightsRNN
from memrnn.models.gru import GRUNetwork
from memrnn.models.lstm_lm import LSTMLanguageModel
from memrnn.models.readout import ReadoutRNN
from memrnn.models.registry import (
    RegisteredModel,
    build_model,
    build_model_for,
    model_names,
    register_model,
    registered_model,
)
from memrnn.models.saving import SavedModel, load_model, save_model
from memrnn.models.stack_machine import DeepStackMachineNetwork, GRUStack
from memrnn.models.stack_rnn import SuperpositionStackRNN
from memrnn.models.state import (
    AttentionState,
    FastWeightsState,
    HiddenState,
    StackRNNState,
    TapeState,
    detach_state,
)
from memrnn.models.tape_rnn import TapeRNN
from memrnn.models.trace import Trace
from memrnn.models.transducer import DeepLSTM, MemoryAugmentedLSTM, core_parameters
from memrnn.models.transformer import CausalTransformer

__all__ = [
    "IRNN",
    "AttentionLSTM",
    "AttentionState",
    "CausalTransformer",
    "DeepLSTM",
    "DeepStackMachineNetwork",
    "ElmanRNN",
    "FastWeightsRNN",
    "FastWeightsState",
    "GRUNetwork",
    "GRUStack",
    "HiddenState",
    "InputEmbedding",
    "LSTMLanguageModel",
    "MemoryAugmentedLSTM",
    "MemoryRNN",
    "OneHotLSTM",
    "ReadoutRNN",
    "RegisteredModel",
    "SavedModel",
    "StackRNNState",
    "SuperpositionStackRNN",
    "TapeRNN",
    "TapeState",
    "Trace",
    "build_model",
    "build_model_for",
    "core_parameters",
    "detach_state",
    "load_model",
    "model_names",
    "register_model",
    "registered_model",
    "save_model",
]
