"""Parameter-free differentiable memories: the neural Stack, Queue and DeQue.

Grefenstette, Hermann, Suleyman, Blunsom (2015), *Learning to Transduce with Unbounded
Memory*. ``memrnn.structures.reference`` holds the same equations as literal NumPy loops
with a hand-written backward pass.
"""

from memrnn.structures.deque import NeuralDeque
from memrnn.structures.queue import NeuralQueue
from memrnn.structures.stack import NeuralStack
from memrnn.structures.state import MemoryState
from memrnn.structures.superposition import SuperpositionStack

__all__ = ["MemoryState", "NeuralDeque", "NeuralQueue", "NeuralStack", "SuperpositionStack"]
