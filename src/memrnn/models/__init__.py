"""Trainable networks: controllers that drive the differentiable memories and the
transduction models built on them, the LSTM language model of the Dyck experiments, and
the Fast Weights RNN with its baselines."""

from memrnn.models.baselines import IRNN, AttentionLSTM, LSTMEncoder, Retriever
from memrnn.models.controller import MemoryRNN
from memrnn.models.fast_weights import FastWeightsRNN
from memrnn.models.gru import GRUNetwork
from memrnn.models.lstm_lm import LSTMLanguageModel
from memrnn.models.stack_machine import DeepStackMachineNetwork, GRUStack
from memrnn.models.stack_rnn import SuperpositionStackRNN
from memrnn.models.trace import Trace
from memrnn.models.transducer import DeepLSTM, MemoryAugmentedLSTM, core_parameters

__all__ = [
    "IRNN",
    "AttentionLSTM",
    "DeepLSTM",
    "DeepStackMachineNetwork",
    "FastWeightsRNN",
    "GRUNetwork",
    "GRUStack",
    "LSTMEncoder",
    "LSTMLanguageModel",
    "MemoryAugmentedLSTM",
    "MemoryRNN",
    "Retriever",
    "SuperpositionStackRNN",
    "Trace",
    "core_parameters",
]
