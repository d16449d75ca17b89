"""RMSProp over parameters stacked along a member dimension: K runs, one optimiser step.

Each member moves exactly as ``torch.optim.RMSprop`` (Tieleman & Hinton, 2012, lecture
6.5; the optimiser of Grefenstette et al. 2015) would move it alone, with its own learning
rate (``memrnn.training.stacked``): torch's single-tensor arithmetic without momentum and
uncentred, with a step size per member.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import torch
from torch import Tensor

from memrnn.training.stacked import Stacked, members_view
from memrnn.validation import check_float


class StackedRMSprop(Stacked):
    """RMSProp over ``(K, *shape)`` parameters, a learning rate per member.

    Member ``k``'s slices move exactly as ``torch.optim.RMSprop(lr=lrs[k], alpha=alpha,
    eps=eps, weight_decay=weight_decay)`` would move its own parameters given the same
    gradients: ``g + weight_decay * p`` is averaged, squared, into ``v`` (``v <- alpha v +
    (1 - alpha) g^2``) and the step is ``-lr g / (sqrt(v) + eps)``. A parameter whose
    gradient is None is skipped, as torch skips it. A learning rate of 0 leaves a
    member's parameters exactly as they are (its average still moves); :meth:`freeze`
    also stops its average and step count.

    Args:
        params: the stacked parameters, each of shape ``(K, ...)``.
        lrs: the K members' learning rates (>= 0).
        weight_decay: the L2 weight decay of every member (>= 0).
        alpha: the squared gradients' decay rate, in [0, 1).
        eps: added to the average's root (> 0).

    Raises:
        ValueError: no parameters, parameters without a common leading size K, ``lrs``
            not K rates >= 0, or a bad ``weight_decay``, ``alpha`` or ``eps``.
    """

    name = "rmsprop"

    def __init__(
        self,
        params: Iterable[Tensor],
        lrs: Sequence[float] | Tensor,
        *,
        weight_decay: float = 0.0,
        alpha: float = 0.99,
        eps: float = 1e-8,
    ) -> None:
        super().__init__(params, lrs, weight_decay)
        self.alpha = check_float("alpha", alpha, 0.0, below=1.0)
        self.eps = check_float("eps", eps, above=0.0)
        self._buffers("square_avg")

    @torch.no_grad()
    def step(self) -> None:
        """One RMSProp step of every member that is not frozen."""
        if all(self._frozen):
            return
        rates: dict[tuple[object, ...], Tensor] = {}
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            frozen = self._moving(i)
            key = (p.dtype, p.device, p.ndim)
            if key not in rates:  # 0 for a frozen member: it does not move
                neg = [0.0 if f else -lr for lr, f in zip(self._lrs, self._frozen, strict=True)]
                rates[key] = members_view(neg, p)
            square_avg = self._state["square_avg"][i]
            kept = square_avg[frozen] if frozen else None  # a copy
            grad = p.grad
            if self.weight_decay != 0:
                grad = grad.add(p, alpha=self.weight_decay)
            square_avg.mul_(self.alpha).addcmul_(grad, grad, value=1 - self.alpha)
            avg = square_avg.sqrt().add_(self.eps)
            # torch's addcdiv_ computes p + (value * g) / avg, in this order
            p.add_(grad.mul(rates[key]).div_(avg))
            if kept is not None:
                square_avg[frozen] = kept

    def _fit(self, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
        settings = {
            "alpha": self.alpha,
            "eps": self.eps,
            "weight_decay": self.weight_decay,
            "momentum": 0,
            "centered": False,
            "maximize": False,
        }
        return self._fit_to(optimizer, torch.optim.RMSprop, settings)
