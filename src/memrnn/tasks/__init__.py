"""Algorithmic tasks for memory-augmented recurrent networks."""

from memrnn.tasks.reversal import IGNORE_INDEX, ReversalBatch, ReversalTask

__all__ = ["IGNORE_INDEX", "ReversalBatch", "ReversalTask"]
