"""Adam over parameters stacked along a member dimension: K runs, one optimiser step.

Each member moves exactly as ``torch.optim.Adam`` (Kingma & Ba, 2015, Algorithm 1) or
``torch.optim.AdamW`` (Loshchilov & Hutter, 2019) would move it alone, with its own
learning rate and its own step count (``memrnn.training.stacked``). :class:`StackedAdam`
runs the arithmetic of torch's single-tensor Adam (the one torch runs on the CPU; on a GPU
torch runs a multi-tensor one, equal to rounding) with per-member step sizes and bias
corrections.
:func:`clip_grad_norm_per_member_` clips each member's gradient by its own global norm, as
``torch.nn.utils.clip_grad_norm_`` clips a run alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import torch
from torch import Tensor

from memrnn.training.stacked import Stacked, members_view
from memrnn.validation import check_flag, check_float

Betas = tuple[float, float]


class StackedAdam(Stacked):
    """Adam (Kingma & Ba, 2015) over ``(K, *shape)`` parameters, a learning rate per member.

    Member ``k``'s slices move exactly as ``torch.optim.Adam(lr=lrs[k], betas=betas,
    eps=eps, weight_decay=weight_decay, decoupled_weight_decay=...)`` would move its own
    parameters given the same gradients: ``g + weight_decay * p`` (L2 decay; or ``g``,
    with ``p`` first scaled by ``1 - lr * weight_decay``: the decoupled decay of AdamW,
    Loshchilov & Hutter, 2019) is averaged into the first and second moments, and the
    step is ``lr / (1 - beta1**t)`` times ``m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``,
    ``t`` counting the member's steps of that parameter. A parameter whose
    gradient is None is skipped, as torch skips it. A learning rate of 0 leaves a
    member's parameters exactly as they are (its moments still move); :meth:`freeze`
    also stops its moments and step count, so its state stays what it was.

    Args:
        params: the stacked parameters, each of shape ``(K, ...)``.
        lrs: the K members' learning rates (>= 0).
        weight_decay: the weight decay of every member (>= 0).
        decoupled_weight_decay: False for L2 decay added to the gradient (Adam), True
            for decay applied to the weights (AdamW).
        betas: the moments' decay rates, each in [0, 1).
        eps: added to the second moment's root (> 0).

    Raises:
        ValueError: no parameters, parameters without a common leading size K, or
            ``lrs`` not K rates >= 0; a bad ``weight_decay``, ``betas`` or ``eps``.
    """

    name = "adam"

    def __init__(
        self,
        params: Iterable[Tensor],
        lrs: Sequence[float] | Tensor,
        *,
        weight_decay: float = 0.0,
        betas: Betas = (0.9, 0.999),
        eps: float = 1e-8,
        decoupled_weight_decay: bool = False,
    ) -> None:
        super().__init__(params, lrs, weight_decay)
        if len(betas) != 2:
            raise ValueError(f"betas: expected two decay rates, got {betas!r}")
        self.betas = (
            check_float("betas[0]", betas[0], 0.0, below=1.0),
            check_float("betas[1]", betas[1], 0.0, below=1.0),
        )
        self.eps = check_float("eps", eps, above=0.0)
        self.decoupled = check_flag("decoupled_weight_decay", decoupled_weight_decay)
        self._buffers("exp_avg", "exp_avg_sq")

    @torch.no_grad()
    def step(self) -> None:
        """One Adam step of every member that is not frozen."""
        if all(self._frozen):
            return
        beta1, beta2 = self.betas
        factors: dict[tuple[object, ...], tuple[Tensor, Tensor, Tensor]] = {}
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            frozen, steps = self._moving(i), self._steps[i]
            key = (tuple(steps), p.dtype, p.device, p.ndim)
            if key not in factors:
                factors[key] = self._factors(steps, p)
            neg_step_size, bias2_sqrt, shrink = factors[key]
            exp_avg, exp_avg_sq = self._state["exp_avg"][i], self._state["exp_avg_sq"][i]
            kept = (exp_avg[frozen], exp_avg_sq[frozen]) if frozen else None  # copies
            grad = p.grad
            if self.weight_decay != 0 and self.decoupled:
                p.mul_(shrink)
            elif self.weight_decay != 0:
                grad = grad.add(p, alpha=self.weight_decay)
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = (exp_avg_sq.sqrt() / bias2_sqrt).add_(self.eps)
            # torch's addcdiv_ computes p + (value * m) / denom, in this order
            p.add_(exp_avg.mul(neg_step_size).div_(denom))
            if kept is not None:
                exp_avg[frozen], exp_avg_sq[frozen] = kept

    def _factors(self, steps: Sequence[float], like: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Each member's -lr / (1 - beta1**t), sqrt(1 - beta2**t) and 1 - lr * weight_decay,
        as torch computes them in Python floats; 0, 1 and 1 for a member that does not move."""
        beta1, beta2 = self.betas
        neg, root, shrink = [], [], []
        for k, t in enumerate(steps):
            if self._frozen[k]:
                neg.append(0.0)
                root.append(1.0)
                shrink.append(1.0)
            else:
                neg.append(-(self._lrs[k] / (1 - beta1**t)))
                root.append((1 - beta2**t) ** 0.5)
                shrink.append(1 - self._lrs[k] * self.weight_decay)
        return members_view(neg, like), members_view(root, like), members_view(shrink, like)

    def _fit(self, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
        settings = {
            "betas": self.betas,
            "eps": self.eps,
            "weight_decay": self.weight_decay,
            "amsgrad": False,
            "maximize": False,
            "decoupled_weight_decay": self.decoupled,
        }
        return self._fit_to(optimizer, torch.optim.Adam, settings)


@torch.no_grad()
def clip_grad_norm_per_member_(params: Iterable[Tensor], max_norm: float) -> Tensor:
    """Clip each member's gradient, over all stacked ``params``, to the global norm
    ``max_norm``, as ``torch.nn.utils.clip_grad_norm_`` clips a run's gradient alone:
    member ``k``'s slices are multiplied by ``min(1, max_norm / (norm_k + 1e-6))``.
    Return the members' norms before clipping, shape ``(K,)``.

    Raises:
        ValueError: ``max_norm`` is not a number > 0, or no parameter has a gradient.
    """
    limit = check_float("max_norm", max_norm, above=0.0)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        raise ValueError("params: no stacked parameter has a gradient to clip")
    members = grads[0].shape[0]
    norms = [torch.linalg.vector_norm(g.reshape(members, -1), 2, dim=1) for g in grads]
    total = torch.linalg.vector_norm(torch.stack(norms, dim=1), 2, dim=1)
    coef = torch.clamp(limit / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef.view((members,) + (1,) * (g.ndim - 1)).to(g.dtype))
    return total
