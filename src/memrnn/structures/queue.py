"""The neural queue of Grefenstette et al. (2015), Eqs. (1), (4), (5)."""

from __future__ import annotations

from memrnn.structures.base import OneEndedMemory


class NeuralQueue(OneEndedMemory):
    """A differentiable queue: first in, first out.

    Each step pops strength u_t from the front (the oldest rows), pushes v_t with
    strength d_t at the back, and reads the front unit of strength (Eqs. 1, 4, 5).

    Example (the paper's Figure 1a inputs through a queue):

    >>> import torch
    >>> queue = NeuralQueue()
    >>> reads = queue.run(torch.tensor([[[1.], [2.], [3.]]]),
    ...                   push=torch.tensor([[0.8, 0.5, 0.9]]),
    ...                   pop=torch.tensor([[0.0, 0.1, 0.9]]))
    >>> [round(r, 4) for r in reads.flatten().tolist()]
    [0.8, 1.3, 2.7]
    """

    end = "bottom"
    kind = "queue"
