"""``MemoryRNN``, a recurrent controller with a differentiable Stack, Queue or DeQue
(Grefenstette et al. 2015, section 3.4; Trask 2016), one idea per module:

- ``network``: the controller, its construction and one step;
- ``gates``: the push, pop and value projections of one end of the memory;
- ``carry``: the state carried between steps and what one step gives;
- ``sequence``: a whole sequence, step by step or as one autograd node;
- ``fused``: that autograd node, with its hand-written backward.
"""

from memrnn.models.controller.carry import Carry, StepOutput
from memrnn.models.controller.gates import MemoryGates
from memrnn.models.controller.network import CellKind, MemoryKind, MemoryRNN

__all__ = ["Carry", "CellKind", "MemoryGates", "MemoryKind", "MemoryRNN", "StepOutput"]
