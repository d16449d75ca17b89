"""Adam over parameters stacked along a member dimension: K runs, one optimiser step.

Runs that differ only in seed or learning rate train together as one model whose every
parameter is stacked ``(K, *shape)``, slice ``k`` being member ``k``'s parameter. Each
member must then move exactly as ``torch.optim.Adam`` (Kingma & Ba, 2015, Algorithm 1)
or ``torch.optim.AdamW`` (Loshchilov & Hutter, 2019) would move it alone, with its own
learning rate and its own step count. :class:`StackedAdam` runs the arithmetic of torch's
single-tensor Adam (the one torch runs on the CPU; on a GPU torch runs a multi-tensor
one, equal to rounding) with per-member step sizes and bias corrections, and hands a
member's state to and from a ``torch.optim.Adam`` over that member's own parameters, so
that a member's checkpoint is a single run's.
:func:`clip_grad_norm_per_member_` clips each member's gradient by its own global norm, as
``torch.nn.utils.clip_grad_norm_`` clips a run alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import torch
from torch import Tensor

from memrnn.validation import check_flag, check_float, check_int

Betas = tuple[float, float]


def _scalar_dtype() -> torch.dtype:
    """The dtype of ``torch.optim.Adam``'s step counts (float64 under a float64 default)."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def _members_view(values: Sequence[float], like: Tensor) -> Tensor:
    """``values`` (one per member) as a tensor that broadcasts over ``like``'s slices."""
    shape = (len(values),) + (1,) * (like.ndim - 1)
    return torch.tensor(values, dtype=like.dtype, device=like.device).view(shape)


class StackedAdam:
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
        self.params = tuple(params)
        if not self.params:
            raise ValueError("params: expected at least one stacked parameter, got none")
        sizes = {p.shape[0] if p.ndim else 0 for p in self.params}
        if len(sizes) != 1 or 0 in sizes:
            raise ValueError(f"params: expected a common leading (member) size, got {sizes}")
        self.members = sizes.pop()
        rates = lrs.tolist() if isinstance(lrs, Tensor) else list(lrs)
        if len(rates) != self.members:
            raise ValueError(
                f"lrs: expected {self.members} rates, one per member, got {len(rates)}"
            )
        self._lrs = [check_float(f"lrs[{k}]", lr, 0.0) for k, lr in enumerate(rates)]
        self.weight_decay = check_float("weight_decay", weight_decay, 0.0)
        if len(betas) != 2:
            raise ValueError(f"betas: expected two decay rates, got {betas!r}")
        self.betas = (
            check_float("betas[0]", betas[0], 0.0, below=1.0),
            check_float("betas[1]", betas[1], 0.0, below=1.0),
        )
        self.eps = check_float("eps", eps, above=0.0)
        self.decoupled = check_flag("decoupled_weight_decay", decoupled_weight_decay)
        self._frozen = [False] * self.members
        # the members' step counts of each parameter, as floats (torch keeps them as such)
        self._steps = [[0.0] * self.members for _ in self.params]
        self._exp_avg = [
            torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params
        ]
        self._exp_avg_sq = [
            torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params
        ]

    @property
    def lrs(self) -> tuple[float, ...]:
        """The members' learning rates."""
        return tuple(self._lrs)

    @property
    def frozen(self) -> tuple[bool, ...]:
        """Which members :meth:`freeze` has frozen."""
        return tuple(self._frozen)

    def freeze(self, member: int) -> None:
        """Stop ``member``: from now on its parameters, moments and step counts stay."""
        self._frozen[self._member(member)] = True

    def zero_grad(self) -> None:
        """Set the stacked parameters' gradients to None."""
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        """One Adam step of every member that is not frozen."""
        frozen = [k for k, f in enumerate(self._frozen) if f]
        if len(frozen) == self.members:
            return
        beta1, beta2 = self.betas
        factors: dict[tuple[object, ...], tuple[Tensor, Tensor, Tensor]] = {}
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            steps = self._steps[i]
            for k in range(self.members):
                steps[k] += 0.0 if self._frozen[k] else 1.0
            key = (tuple(steps), p.dtype, p.device, p.ndim)
            if key not in factors:
                factors[key] = self._factors(steps, p)
            neg_step_size, bias2_sqrt, shrink = factors[key]
            exp_avg, exp_avg_sq = self._exp_avg[i], self._exp_avg_sq[i]
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
        return _members_view(neg, like), _members_view(root, like), _members_view(shrink, like)

    def export_member(self, member: int, adam: torch.optim.Adam) -> None:
        """Put ``member``'s state into ``adam``, an Adam over that member's own
        parameters (in the order of the stacked ones), as if ``adam`` had made the
        member's steps: moments, step counts and learning rate.

        Raises:
            ValueError: ``adam`` does not fit (other parameters or settings).
        """
        k = self._member(member)
        self._fit(adam)
        saved = adam.state_dict()
        saved["param_groups"][0]["lr"] = self._lrs[k]
        saved["state"] = {
            i: {
                "step": torch.tensor(self._steps[i][k], dtype=_scalar_dtype()),
                "exp_avg": self._exp_avg[i][k].clone(),
                "exp_avg_sq": self._exp_avg_sq[i][k].clone(),
            }
            for i in range(len(self.params))
            if self._steps[i][k] > 0  # torch holds no state for a parameter never stepped
        }
        adam.load_state_dict(saved)

    @torch.no_grad()
    def import_member(self, member: int, adam: torch.optim.Adam) -> None:
        """Set ``member``'s state (moments, step counts, learning rate) from ``adam``, an
        Adam over that member's own parameters, such as one restored from a run's
        checkpoint.

        Raises:
            ValueError: ``adam`` does not fit (other parameters or settings).
        """
        k = self._member(member)
        group = self._fit(adam)
        self._lrs[k] = check_float("lr", group["lr"], 0.0)
        for i, q in enumerate(group["params"]):
            state = adam.state.get(q, {})
            if state:
                self._steps[i][k] = float(state["step"])
                self._exp_avg[i][k].copy_(state["exp_avg"])
                self._exp_avg_sq[i][k].copy_(state["exp_avg_sq"])
            else:
                self._steps[i][k] = 0.0
                self._exp_avg[i][k].zero_()
                self._exp_avg_sq[i][k].zero_()

    def _fit(self, adam: torch.optim.Adam) -> dict[str, Any]:
        """``adam``'s one parameter group; ValueError unless it holds a member's
        parameters and this optimiser's settings."""
        if not isinstance(adam, torch.optim.Adam) or len(adam.param_groups) != 1:
            raise ValueError("adam: expected a torch.optim.Adam with one parameter group")
        group = adam.param_groups[0]
        ours = {
            "betas": self.betas,
            "eps": self.eps,
            "weight_decay": self.weight_decay,
            "amsgrad": False,
            "maximize": False,
            "decoupled_weight_decay": self.decoupled,
        }
        for name, value in ours.items():
            theirs = tuple(group[name]) if name == "betas" else group.get(name, False)
            if theirs != value:
                raise ValueError(
                    f"adam: its {name} is {theirs!r}, the stacked optimiser's {value!r}"
                )
        shapes = [tuple(q.shape) for q in group["params"]]
        wanted = [tuple(p.shape[1:]) for p in self.params]
        if shapes != wanted:
            raise ValueError(f"adam: its parameters are of shapes {shapes}, a member's {wanted}")
        return group

    def _member(self, member: int) -> int:
        return check_int("member", member, 0, self.members - 1)


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
