"""K models of one architecture trained as one model: "many runs as one".

Most runs are small models at small batches, where a training step on a CPU waits on
Python and on kernel launches, not on arithmetic. Runs that differ only in their seed or
learning rate have the same shapes, so ``Grouped`` runs K such models with one forward
and one backward: the members' own forward under ``torch.func.vmap`` over their
parameters stacked (``functional_call``), so that the matrix products become batched
ones and the memory's autograd node (Grefenstette et al. 2015, section 3.4), which acts
row by row, runs once over all K B rows by its batching rule
(``memrnn.models.controller.ops``). The members' parameters stay their own leaves (the
stack's backward hands each its gradient), so each member keeps its own optimiser.
Models whose forward vmap cannot run (``nn.LSTM`` and ``nn.GRU`` have no batching rule)
run member after member inside the one forward, still sharing the step's backward and
loop. Nothing is written per model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from torch import Tensor, nn
from torch.func import functional_call, vmap
from torch.nn.attention import SDPBackend, sdpa_kernel

from memrnn.models.checks import check_inputs, check_token_ids, is_token_ids
from memrnn.models.registry import model_build

Params = Mapping[str, Tensor]


_PLAIN = (bool, int, float, str, type(None))


def _is_plain(value: object) -> bool:
    return isinstance(value, _PLAIN) or (
        isinstance(value, tuple | list) and all(_is_plain(v) for v in value)
    )


def _settings(model: nn.Module) -> dict[str, object]:
    """A model's identity besides its weights: each submodule's class and the plain
    attributes its forward reads (sizes, a memory's kind, a depth, a rate), by path."""
    settings: dict[str, object] = {}
    for path, module in model.named_modules():
        where = f"{path}." if path else ""
        settings[f"{where}class"] = type(module).__qualname__
        for key, value in vars(module).items():
            if not key.startswith("_") and key != "training" and _is_plain(value):
                settings[where + key] = value
    return settings


def _draws_noise(model: nn.Module) -> bool:
    """Whether ``model``'s forward may draw random numbers: gate noise or dropout."""
    return any(
        getattr(m, "gate_noise", 0)
        or (isinstance(m, nn.modules.dropout._DropoutNd) and m.p)
        or (isinstance(m, nn.RNNBase) and m.dropout and m.num_layers > 1)
        or (isinstance(m, nn.MultiheadAttention) and m.dropout)
        for m in model.modules()
    )


def _input_size(model: nn.Module) -> int:
    """The model's input vocabulary (or vector width): from how it was built, else its
    ``input_size`` (or a transducer's ``input_vocab``)."""
    build = model_build(model)
    size = build.input_size if build is not None else None
    for name in ("input_size", "input_vocab"):
        size = getattr(model, name, None) if size is None else size
    if not isinstance(size, int):
        raise ValueError(f"{type(model).__name__}: its input size is unknown")
    return size


def _vmapped(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """The members' forward, ``model``'s own, under vmap over their stacked ``params``
    and inputs; a member that draws random numbers is an error, not a silent draw."""

    def member(p: Params, x: Tensor) -> Tensor:
        out: Tensor = functional_call(model, dict(p), (x,))
        return out

    # PyTorch's fused attention kernels have no batching rule (vmap would run them member
    # by member); its math kernel is matrix products and a softmax, which vmap batches.
    with sdpa_kernel(SDPBackend.MATH):
        out: Tensor = vmap(member, randomness="error")(dict(params), inputs)
    return out


_TRIED: dict[tuple[type[nn.Module], tuple[tuple[str, object], ...]], bool] = {}


def _vmap_runs(model: nn.Module) -> bool:
    """Whether ``model``'s forward and backward run under vmap: tried once for each class
    and options, on two members and two steps of one sequence (a step that reads the
    past, too)."""
    key = (type(model), tuple(sorted(_settings(model).items(), key=lambda kv: kv[0])))
    if key not in _TRIED:
        params = {n: torch.stack([p.detach(), p.detach()]).requires_grad_(p.requires_grad)
                  for n, p in model.named_parameters()}  # fmt: skip
        accepts = getattr(model, "accepts", ("tokens",))
        like = next(iter(params.values()))
        size = _input_size(model)
        x = (torch.zeros(2, 1, 2, dtype=torch.long, device=like.device) if "tokens" in accepts
             else like.new_zeros(2, 1, 2, size))  # fmt: skip
        try:
            _vmapped(model, params, x).sum().backward()
            _TRIED[key] = True
        except Exception:  # any failure under vmap: the members run one after another
            _TRIED[key] = False
    return _TRIED[key]


def groupable(model: nn.Module) -> bool:
    """Whether ``model`` can be a member of ``Grouped``: its forward draws no random
    numbers (a controller's ``gate_noise`` 0, a Transformer's dropout 0), which the
    members could not share."""
    return not _draws_noise(model)


class Grouped(nn.Module):
    """K models of one architecture trained as one.

    The members stay modules of their own, outside this module's tree (it has no
    parameters): each forward stacks their parameters for ``vmap``, and the backward
    hands each member's leaves their gradients. Training and evaluation mode give the
    same outputs: a groupable model draws no noise.

    Args:
        members: K >= 1 groupable models (``groupable``) of one class, with the same
            options, parameter names, shapes, dtypes and devices.

    Raises:
        ValueError: naming the problem: no members, a member that is not groupable, or
            one that differs from the first.
    """

    def __init__(self, members: Sequence[nn.Module]) -> None:
        super().__init__()
        members = tuple(members)
        if not members:
            raise ValueError("members: expected at least one model, got none")
        for k, member in enumerate(members):
            if not groupable(member):
                raise ValueError(
                    f"members[{k}]: a {type(member).__name__} cannot be grouped: its forward "
                    "draws random numbers (gate noise, dropout)"
                )
        first = list(members[0].named_parameters())
        for k, member in enumerate(members[1:], start=1):
            _check_alike(k, member, members[0], first)
        self.members = members
        self.names = tuple(name for name, _ in first)
        self.vmapped = _vmap_runs(members[0])

    def forward(self, inputs: Tensor, which: Sequence[int] | None = None) -> Tensor:
        """The logits (K', B, T, O) of every member ``which[j]`` (all, by default) on its
        own inputs ``inputs[j]``: token ids (K', B, T) or vectors (K', B, T, F), B, T >= 1;
        equal, to rounding, to ``torch.stack([members[k](inputs[j]) for j, k in
        enumerate(which)])``.

        Raises:
            ValueError: naming ``inputs``: a shape, dtype or device that does not fit, or
                a token id outside the members' input vocabulary; or a ``which`` that is
                not distinct member indices.
        """
        chosen = list(range(len(self.members))) if which is None else list(which)
        if (
            not chosen
            or len(set(chosen)) != len(chosen)
            or not all(isinstance(k, int) and 0 <= k < len(self.members) for k in chosen)
        ):
            raise ValueError(
                f"which: expected distinct member indices in 0 .. {len(self.members) - 1}, "
                f"got {chosen}"
            )
        members = [self.members[k] for k in chosen]
        template = members[0]
        like = next(template.parameters())
        checked = _check_inputs(inputs, len(members), _input_size(template), like)
        if not self.vmapped:
            return torch.stack([m(x) for m, x in zip(members, checked.unbind(0), strict=True)])
        params = {name: torch.stack([m.get_parameter(name) for m in members])
                  for name in self.names}  # fmt: skip
        return _vmapped(template, params, checked)


def _check_alike(
    k: int,
    member: nn.Module,
    first: nn.Module,
    first_params: list[tuple[str, nn.Parameter]],
) -> None:
    """Raise a ValueError naming ``members[k]`` where it differs from ``members[0]``."""
    where = f"members[{k}]"
    if type(member) is not type(first):
        raise ValueError(
            f"{where}: a {type(member).__name__}, but members[0] is a {type(first).__name__}"
        )
    mine, theirs = _settings(member), _settings(first)
    for key in sorted(mine.keys() | theirs.keys()):
        if mine.get(key) != theirs.get(key):
            raise ValueError(
                f"{where}: its {key} is {mine.get(key)!r}, members[0]'s {theirs.get(key)!r}"
            )
    params = list(member.named_parameters())
    if [n for n, _ in params] != [n for n, _ in first_params]:
        raise ValueError(f"{where}: its parameters' names differ from members[0]'s")
    for (name, b), (_, c) in zip(member.named_buffers(), first.named_buffers(), strict=True):
        if b.shape != c.shape or not torch.equal(b, c):
            raise ValueError(f"{where}: its buffer {name} differs from members[0]'s")
    for (name, p), (_, q) in zip(params, first_params, strict=True):
        if (p.shape, p.dtype, p.device) != (q.shape, q.dtype, q.device):
            raise ValueError(
                f"{where}: parameter {name} is {tuple(p.shape)} {p.dtype} on {p.device}, "
                f"members[0]'s {tuple(q.shape)} {q.dtype} on {q.device}"
            )


def _check_inputs(inputs: object, k: int, size: int, like: Tensor) -> Tensor:
    """``inputs`` checked: ids (K, B, T) in 0 .. size - 1, or vectors (K, B, T, size) of
    ``like``'s dtype and device, B, T >= 1 (one reduction for the ids' range)."""
    ids = is_token_ids(inputs)
    ndim, what = (3, f"token ids ({k}, B, T)") if ids else (4, f"vectors ({k}, B, T, {size})")
    if (
        not isinstance(inputs, Tensor)
        or inputs.ndim != ndim
        or inputs.shape[0] != k
        or inputs.shape[1] < 1
        or inputs.shape[2] < 1
        or (not ids and inputs.shape[3] != size)
    ):
        got = tuple(inputs.shape) if isinstance(inputs, Tensor) else type(inputs).__name__
        raise ValueError(f"inputs: expected {what} for {k} members, B, T >= 1; got {got}")
    if ids:
        check_token_ids(inputs.flatten(0, 1), size, name="inputs")
    else:
        check_inputs(inputs.flatten(0, 1), size, like)
    return inputs
