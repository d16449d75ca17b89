"""What every optimiser over stacked parameters shares: K runs, one step.

Runs that differ only in seed or learning rate train together as one model whose every
parameter is stacked ``(K, *shape)``, slice ``k`` being member ``k``'s parameter. Each
member must move exactly as its own torch optimiser would move it alone, with its own
learning rate and step count, and hand its state to and from that optimiser, so that a
member's checkpoint is a single run's. :class:`Stacked` holds the members, their rates
and which are frozen; :class:`~memrnn.training.StackedAdam` and
:class:`~memrnn.training.StackedRMSprop` do the arithmetic; :func:`stacked_optimizer`
and :func:`member_optimizer` make the pair for an optimiser's name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import torch
from torch import Tensor

from memrnn.validation import check_choice, check_float, check_int

GroupedOptimizer = Literal["adam", "adamw", "rmsprop"]
GROUPED: tuple[GroupedOptimizer, ...] = ("adam", "adamw", "rmsprop")
_SINGLE_RUN: dict[str, Callable[..., torch.optim.Optimizer]] = {
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "rmsprop": torch.optim.RMSprop,
}


def scalar_dtype() -> torch.dtype:
    """The dtype of torch's optimisers' step counts (float64 under a float64 default)."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def members_view(values: Sequence[float], like: Tensor) -> Tensor:
    """``values`` (one per member) as a tensor that broadcasts over ``like``'s slices."""
    shape = (len(values),) + (1,) * (like.ndim - 1)
    return torch.tensor(values, dtype=like.dtype, device=like.device).view(shape)


class Stacked(ABC):
    """The members of an optimiser over ``(K, *shape)`` parameters: their learning rates,
    which are frozen, and the single-run optimiser a member's state goes to and from.

    Args:
        params: the stacked parameters, each of shape ``(K, ...)``.
        lrs: the K members' learning rates (>= 0).
        weight_decay: the weight decay of every member (>= 0).

    Raises:
        ValueError: no parameters, parameters without a common leading size K, ``lrs``
            not K rates >= 0, or a bad ``weight_decay``.
    """

    name = "optimiser"  # as the errors name the single-run optimiser

    def __init__(
        self, params: Iterable[Tensor], lrs: Sequence[float] | Tensor, weight_decay: float
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
        self._frozen = [False] * self.members
        # the members' step counts of each parameter, as floats (torch keeps them as such)
        self._steps = [[0.0] * self.members for _ in self.params]
        # the per-parameter buffers, stacked, by the names torch's optimiser gives them
        self._state: dict[str, list[Tensor]] = {}

    def _buffers(self, *names: str) -> None:
        """Start the buffers ``names`` at zero, one per parameter."""
        for name in names:
            self._state[name] = [
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
        """Stop ``member``: from now on its parameters, state and step counts stay."""
        self._frozen[self._member(member)] = True

    def zero_grad(self) -> None:
        """Set the stacked parameters' gradients to None."""
        for p in self.params:
            p.grad = None

    @abstractmethod
    def step(self) -> None:
        """One step of every member that is not frozen."""

    def export_member(self, member: int, optimizer: torch.optim.Optimizer) -> None:
        """Put ``member``'s state into ``optimizer``, one over that member's own
        parameters (in the order of the stacked ones), as if it had made the member's
        steps: its buffers, step counts and learning rate.

        Raises:
            ValueError: ``optimizer`` does not fit (other parameters or settings).
        """
        k = self._member(member)
        self._fit(optimizer)
        saved = optimizer.state_dict()
        saved["param_groups"][0]["lr"] = self._lrs[k]
        saved["state"] = {
            i: {
                "step": torch.tensor(self._steps[i][k], dtype=scalar_dtype()),
                **{name: buffers[i][k].clone() for name, buffers in self._state.items()},
            }
            for i in range(len(self.params))
            if self._steps[i][k] > 0  # torch holds no state for a parameter never stepped
        }
        optimizer.load_state_dict(saved)

    @torch.no_grad()
    def import_member(self, member: int, optimizer: torch.optim.Optimizer) -> None:
        """Set ``member``'s state (buffers, step counts, learning rate) from
        ``optimizer``, one over that member's own parameters, such as one restored from a
        run's checkpoint.

        Raises:
            ValueError: ``optimizer`` does not fit (other parameters or settings).
        """
        k = self._member(member)
        group = self._fit(optimizer)
        self._lrs[k] = check_float("lr", group["lr"], 0.0)
        for i, q in enumerate(group["params"]):
            state = optimizer.state.get(q, {})
            self._steps[i][k] = float(state["step"]) if state else 0.0
            for name, buffers in self._state.items():
                if state:
                    buffers[i][k].copy_(state[name])
                else:
                    buffers[i][k].zero_()

    @abstractmethod
    def _fit(self, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
        """``optimizer``'s one parameter group; ValueError unless it is the single-run
        optimiser of this one, over a member's parameters, with its settings."""

    def _moving(self, i: int) -> list[int]:
        """Count a step of parameter ``i`` for every member not frozen; the frozen."""
        steps = self._steps[i]
        for k in range(self.members):
            steps[k] += 0.0 if self._frozen[k] else 1.0
        return [k for k, f in enumerate(self._frozen) if f]

    def _fit_to(
        self, optimizer: torch.optim.Optimizer, kind: type, settings: dict[str, Any]
    ) -> dict[str, Any]:
        """``optimizer``'s one parameter group; ValueError unless it is a ``kind`` over a
        member's parameters with these ``settings``."""
        if not isinstance(optimizer, kind) or len(optimizer.param_groups) != 1:
            raise ValueError(
                f"{self.name}: expected a torch.optim.{kind.__name__} with one parameter group"
            )
        group = optimizer.param_groups[0]
        for name, value in settings.items():
            theirs = group.get(name, False)
            theirs = tuple(theirs) if isinstance(theirs, list) else theirs  # betas
            if theirs != value:
                raise ValueError(
                    f"{self.name}: its {name} is {theirs!r}, the stacked optimiser's {value!r}"
                )
        shapes = [tuple(q.shape) for q in group["params"]]
        wanted = [tuple(p.shape[1:]) for p in self.params]
        if shapes != wanted:
            raise ValueError(
                f"{self.name}: its parameters are of shapes {shapes}, a member's {wanted}"
            )
        return group

    def _member(self, member: int) -> int:
        return check_int("member", member, 0, self.members - 1)


def member_optimizer(
    name: GroupedOptimizer, params: Iterable[Tensor], lr: float, weight_decay: float
) -> torch.optim.Optimizer:
    """The torch optimiser ``name`` with one learning rate: a run's alone, and so each
    member's (``memrnn.experiments.config.make_optimizer`` makes a run's with it, as do
    Hewitt et al.'s language models and the PyTorch estimators).

    It takes torch's multi-tensor (``foreach``) path on a CPU as well, where torch's
    default is a loop over the tensors in Python: the same arithmetic per element, so
    the same numbers bit for bit, with fewer calls (about half a millisecond of a
    training step of Grefenstette et al.'s quick profile)."""
    kind = _SINGLE_RUN[check_choice("optimizer", name, GROUPED)]
    return kind(params, lr=lr, weight_decay=weight_decay, foreach=True)


def stacked_optimizer(
    name: GroupedOptimizer, params: Iterable[Tensor], lrs: Sequence[float], weight_decay: float
) -> Stacked:
    """The optimiser over stacked ``params`` that moves each member as
    ``member_optimizer(name, ...)`` moves it alone."""
    # imported here: both subclass ``Stacked`` and so import this module
    from memrnn.training.stacked_adam import StackedAdam
    from memrnn.training.stacked_rmsprop import StackedRMSprop

    check_choice("optimizer", name, GROUPED)
    if name == "rmsprop":
        return StackedRMSprop(params, lrs, weight_decay=weight_decay)
    return StackedAdam(
        params, lrs, weight_decay=weight_decay, decoupled_weight_decay=name == "adamw"
    )
