"""Trainable networks: controllers that drive the differentiable memories, and the LSTM
language model of the Dyck experiments."""

from memrnn.models.controller import MemoryRNN, MemoryRNNOutput
from memrnn.models.lstm_lm import LSTMLanguageModel
from memrnn.models.stack_rnn import StackRNNOutput, SuperpositionStackRNN

__all__ = [
    "LSTMLanguageModel",
    "MemoryRNN",
    "MemoryRNNOutput",
    "StackRNNOutput",
    "SuperpositionStackRNN",
]
