"""Trainable networks: controllers that drive the differentiable memories."""

from memrnn.models.controller import MemoryRNN, MemoryRNNOutput
from memrnn.models.stack_rnn import StackRNNOutput, SuperpositionStackRNN

__all__ = ["MemoryRNN", "MemoryRNNOutput", "StackRNNOutput", "SuperpositionStackRNN"]
