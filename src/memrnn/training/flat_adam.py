"""Adam and AdamW whose step on a CPU runs over one flat buffer: torch's arithmetic in a
dozen calls rather than a dozen per parameter.

On a CPU, torch's multi-tensor (``foreach``) Adam loops over the parameters in C++, one
kernel call per parameter and operation, after some Python per parameter; for the small
models of these experiments that is about a millisecond a step, a tenth of a quick
Grefenstette et al. (2015) step at short lengths. :class:`FlatAdam` and
:class:`FlatAdamW` gather the parameters and gradients into one vector each, keep the
moments in one vector each (the state that torch's ``state_dict`` holds is views of
them), run torch's operations on those, and copy the parameters back. Each element goes
through the same operations with the same scalars as in torch's step, so the weights
and the state are the same bit for bit (``tests/training/test_flat_adam.py``). Whatever
that path does not cover (several parameter groups, a parameter without a gradient, a
GPU, mixed dtypes, ``amsgrad``, ``maximize``, a tensor learning rate, a closure) takes
torch's own step.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from memrnn.training.stacked import scalar_dtype


class _Flat:
    """The flat buffers of one parameter group: its parameters and gradients gathered,
    and the first and second moments, whose slices are the state's tensors."""

    def __init__(self, params: list[Tensor], state: dict[Tensor, dict[str, Any]]) -> None:
        like = params[0]
        size = sum(p.numel() for p in params)
        self.params = params
        self.weights = like.new_empty(size)
        self.grads = like.new_empty(size)
        self.exp_avg = like.new_zeros(size)
        self.exp_avg_sq = like.new_zeros(size)
        self.slices: list[Tensor] = []  # the views of ``weights`` the parameters return to
        self.steps: list[Tensor] = []
        start = 0
        for p in params:
            stop = start + p.numel()
            entry = state[p]
            for name in ("exp_avg", "exp_avg_sq"):
                flat: Tensor = getattr(self, name)[start:stop]
                if name in entry:
                    flat.copy_(entry[name].reshape(-1))
                entry[name] = flat.view_as(p)
            self.slices.append(self.weights[start:stop].view_as(p))
            self.steps.append(entry["step"])
            start = stop
        self.pointers = self._pointers(state)

    def _pointers(self, state: dict[Tensor, dict[str, Any]]) -> list[int]:
        return [
            state[p][name].data_ptr() for p in self.params for name in ("exp_avg", "exp_avg_sq")
        ]

    def holds(self, params: list[Tensor], state: dict[Tensor, dict[str, Any]]) -> bool:
        """Whether ``state`` is still these buffers' views over the same parameters (a
        ``load_state_dict`` or a caller writing the state replaces them)."""
        return (
            len(params) == len(self.params)
            and params[0].dtype == self.weights.dtype
            and all(map(operator.is_, params, self.params))
            and all(state[p]["step"] is s for p, s in zip(params, self.steps, strict=True))
            and self._pointers(state) == self.pointers
        )


class _FlatStep(torch.optim.Optimizer):
    """The flat step shared by :class:`FlatAdam` and :class:`FlatAdamW`."""

    decoupled = False  # AdamW's decay of the weights rather than of the gradient
    _flat: _Flat | None = None

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Set the gradients to None (as torch does, without its per-call profiling), or
        to zero through torch."""
        if not set_to_none:
            super().zero_grad(set_to_none=False)
            return
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:  # type: ignore[override]
        """One step: over the flat buffers where it can, otherwise torch's own."""
        flat = None if closure is not None else self._ready()
        if flat is None:
            self._flat = None  # torch's step may leave the step counts apart
            torch_step = super().step
            # torch wraps a class's step with the step hooks once it has an instance;
            # they ran around this step already
            inner = getattr(torch_step, "__wrapped__", None)
            return inner(self, closure) if inner is not None else torch_step(closure)
        group = self.param_groups[0]
        lr, (beta1, beta2) = group["lr"], group["betas"]
        weight_decay, eps = group["weight_decay"], group["eps"]
        params = flat.params
        torch.cat([p.reshape(-1) for p in params], out=flat.weights)
        torch.cat([p.grad.reshape(-1) for p in params], out=flat.grads)  # type: ignore[union-attr]
        torch._foreach_add_(flat.steps, torch.tensor(1.0), alpha=1.0)
        step = flat.steps[0].item()
        grads = flat.grads
        if weight_decay != 0:
            if self.decoupled:
                flat.weights.mul_(1 - lr * weight_decay)
            else:
                grads = grads.add(flat.weights, alpha=weight_decay)
        flat.exp_avg.lerp_(grads, 1 - beta1)
        flat.exp_avg_sq.mul_(beta2)
        flat.exp_avg_sq.addcmul_(grads, grads, value=1 - beta2)
        # the scalars as torch's multi-tensor Adam computes them, in Python floats
        step_size = (lr / (1 - beta1**step)) * -1
        denom = flat.exp_avg_sq.sqrt()
        denom.div_((1 - beta2**step) ** 0.5)
        denom.add_(eps)
        flat.weights.addcdiv_(flat.exp_avg, denom, value=step_size)
        torch._foreach_copy_(params, flat.slices)
        return None

    def _ready(self) -> _Flat | None:
        """The flat buffers when this step can run over them, None when torch's must."""
        if len(self.param_groups) != 1:
            return None
        group = self.param_groups[0]
        if any(group.get(name) for name in _TORCH_ONLY) or any(
            isinstance(group[name], Tensor) for name in ("lr", "weight_decay", "eps")
        ):
            return None
        params: list[Tensor] = group["params"]
        if not params or any(isinstance(beta, Tensor) for beta in group["betas"]):
            return None
        dtype = params[0].dtype
        for p in params:
            grad = p.grad
            if grad is None or grad.is_sparse or p.dtype != dtype or not p.is_cpu:
                return None
        if not dtype.is_floating_point:
            return None
        flat = self._flat
        if flat is not None and flat.holds(params, self.state):
            return flat
        # a parameter never stepped has no state; torch's step would start it at 0
        steps = {float(self.state[p]["step"]) if self.state[p] else 0.0 for p in params}
        if len(steps) != 1:  # parameters stepped different numbers of times
            return None
        for p in params:
            if not self.state[p]:
                self.state[p]["step"] = torch.tensor(0.0, dtype=scalar_dtype())
        self._flat = _Flat(params, self.state)
        return self._flat


# the settings whose arithmetic the flat step does not do
_TORCH_ONLY = ("amsgrad", "maximize", "capturable", "differentiable", "fused")


class FlatAdam(_FlatStep, torch.optim.Adam):
    """``torch.optim.Adam`` (Kingma & Ba, 2015) whose step on a CPU runs torch's
    operations once over flat copies of the parameters and gradients, the moments kept
    in flat buffers whose views the state holds: the same weights and ``state_dict`` as
    torch's step, bit for bit, in fewer calls. Several parameter groups, a parameter
    without a gradient, a GPU, mixed dtypes, ``amsgrad``, ``maximize``, a tensor
    learning rate or a closure take torch's step. Arguments as ``torch.optim.Adam``."""


class FlatAdamW(_FlatStep, torch.optim.AdamW):
    """``torch.optim.AdamW`` (Loshchilov & Hutter, 2019) whose step on a CPU runs over
    flat buffers as :class:`FlatAdam`'s does: the same weights and ``state_dict`` as
    torch's step, bit for bit. Arguments as ``torch.optim.AdamW``."""

    decoupled = True
