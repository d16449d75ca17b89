"""Controllers that drive the differentiable memories."""

from memrnn.models.controller import MemoryRNN, MemoryRNNOutput

__all__ = ["MemoryRNN", "MemoryRNNOutput"]
