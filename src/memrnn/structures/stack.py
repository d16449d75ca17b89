"""The neural stack of Grefenstette et al. (2015), Eqs. (1)-(3)."""

from __future__ import annotations

from memrnn.structures.base import OneEndedMemory


class NeuralStack(OneEndedMemory):
    """A differentiable stack: last in, first out.

    Each step pops strength u_t from the top, pushes v_t with strength d_t, and reads the
    top unit of strength (Eqs. 1-3). With push and pop in {0, 1} it is a classical stack
    whose read is the top value, or zero when empty.

    Example (the paper's Figure 1a):

    >>> import torch
    >>> stack = NeuralStack()
    >>> reads = stack.run(torch.tensor([[[1.], [2.], [3.]]]),
    ...                   push=torch.tensor([[0.8, 0.5, 0.9]]),
    ...                   pop=torch.tensor([[0.0, 0.1, 0.9]]))
    >>> [round(r, 4) for r in reads.flatten().tolist()]
    [0.8, 1.5, 2.8]
    """

    end = "top"
    kind = "stack"
