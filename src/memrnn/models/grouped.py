"""K models of one architecture trained as one model: "many runs as one".

Most runs are small models at small batches, where a training step on a CPU waits on
Python and on kernel launches, not on arithmetic. Runs that differ only in their seed or
learning rate have the same shapes, so ``Grouped`` stacks each parameter of K such
models into one (K, *shape) tensor and runs all K with one forward and one backward.

By default the members' own forward runs under ``torch.func.vmap`` over their stacked
parameters (``functional_call``): the matrix products become batched ones, and the
memory's autograd node (Grefenstette et al. 2015, section 3.4), which acts row by row,
runs once over all K B rows by its batching rule (``memrnn.models.controller.ops``). Any
model whose operations vmap can batch groups so, with nothing written for it
(``groupable`` tries it once). Models built on ``nn.LSTM`` and ``nn.GRU``, which vmap
cannot batch, and a few whose vmapped forward is slower than one written for K members,
register a forward of their own in ``FORWARDS``, beside the options its members must
share, in the ``grouped_*`` modules beside this one, which importing it registers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.func import functional_call, vmap

from memrnn.models.checks import check_inputs, check_token_ids, is_token_ids
from memrnn.models.registry import model_build

Params = Mapping[str, Tensor]


@dataclass(frozen=True)
class GroupedForward:
    """How one model class runs grouped.

    Attributes:
        options: what two members must agree on besides their parameters' shapes (sizes
            and choices that leave the shapes alone, such as a stack against a queue).
        ready: whether a member can run grouped at all (no random noise in its forward).
        forward: (template member, stacked parameters by name, checked inputs
            (K, B, T) or (K, B, T, F)) -> logits (K, B, T, O).
        input_size: the template's input vocabulary (the width of its input vectors).
    """

    options: Callable[[nn.Module], tuple[object, ...]]
    ready: Callable[[nn.Module], bool]
    forward: Callable[[nn.Module, Params, Tensor], Tensor]
    input_size: Callable[[nn.Module], int]


FORWARDS: dict[type[nn.Module], GroupedForward] = {}


def _options(model: nn.Module) -> tuple[object, ...]:
    """A model's identity besides its weights: how ``build_model`` made it, else its
    class and ``repr``, which lists its layers' sizes and, through each module's
    ``extra_repr``, the options its forward reads (a memory's kind, say)."""
    build = model_build(model)
    if build is not None:
        return (
            build.name,
            build.input_size,
            build.output_size,
            repr(sorted(build.options.items())),
        )
    return (type(model).__qualname__, repr(model))


def _draws_noise(model: nn.Module) -> bool:
    """Whether ``model``'s forward may draw random numbers: gate noise or dropout."""
    return any(
        getattr(m, "gate_noise", 0) or (isinstance(m, nn.modules.dropout._DropoutNd) and m.p)
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

    out: Tensor = vmap(member, randomness="error")(dict(params), inputs)
    return out


_VMAP = GroupedForward(_options, lambda m: not _draws_noise(m), _vmapped, _input_size)
_TRIED: dict[tuple[type[nn.Module], tuple[object, ...]], bool] = {}


def _vmap_runs(model: nn.Module) -> bool:
    """Whether ``model``'s forward and backward run under vmap: tried once for each class
    and options, on two members and one step of one sequence."""
    key = (type(model), _options(model))
    if key not in _TRIED:
        params = {n: torch.stack([p.detach(), p.detach()]).requires_grad_(p.requires_grad)
                  for n, p in model.named_parameters()}  # fmt: skip
        accepts = getattr(model, "accepts", ("tokens",))
        like = next(iter(params.values()))
        size = _input_size(model)
        x = (torch.zeros(2, 1, 1, dtype=torch.long, device=like.device) if "tokens" in accepts
             else like.new_zeros(2, 1, 1, size))  # fmt: skip
        try:
            _vmapped(model, params, x).sum().backward()
            _TRIED[key] = True
        except Exception:  # any failure under vmap: the model trains alone
            _TRIED[key] = False
    return _TRIED[key]


def recipe(model: nn.Module) -> GroupedForward | None:
    """How ``model`` runs grouped: its class's forward in ``FORWARDS``, else its own under
    vmap where that runs; None where it cannot be grouped."""
    found = FORWARDS.get(type(model))
    if found is not None:
        return found
    return _VMAP if _vmap_runs(model) else None


def groupable(model: nn.Module) -> bool:
    """Whether ``model`` can be a member of ``Grouped``: its forward draws no random
    numbers (a controller's ``gate_noise`` 0, a Transformer's dropout 0), and either its
    class (not a subclass, which may change the forward) has a forward in ``FORWARDS``
    or its own forward and backward run under ``torch.func.vmap``."""
    found = FORWARDS.get(type(model))
    if found is not None:
        return found.ready(model)
    return _VMAP.ready(model) and _vmap_runs(model)


def _embed(table: Tensor, inputs: Tensor) -> Tensor:
    """K members' embeddings: table (K, V, E), ids (K, B, T) or vectors (K, B, T, V) ->
    (K, B, T, E). Ids look their member's rows up, as ``nn.Embedding`` does."""
    k, vocab, _ = table.shape
    if is_token_ids(inputs):
        offsets = vocab * torch.arange(k, device=inputs.device).view(k, 1, 1)
        return F.embedding(inputs.long() + offsets, table.flatten(0, 1))
    rows = inputs.reshape(k, -1, vocab)
    return torch.bmm(rows, table).view(*inputs.shape[:-1], -1)


class Grouped(nn.Module):
    """K models of one architecture trained as one: each parameter stacked (K, *shape).

    The stacked parameters are this module's own, in the order of the members'
    ``parameters()`` (stacked parameter i holds parameter i of every member), registered
    under the members' names with "." as "__". The members stay outside the module tree:
    ``write_back`` copies the stacked values into them, ``read_members`` the reverse.
    Training and evaluation mode give the same outputs: a groupable model draws no noise.

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
                    "draws random numbers (gate noise, dropout), or torch.func.vmap cannot "
                    "run it and its class has no grouped forward of its own"
                )
        found = recipe(members[0])
        assert found is not None
        self.recipe = found
        first = list(members[0].named_parameters())
        for k, member in enumerate(members[1:], start=1):
            _check_alike(k, member, members[0], first, self.recipe)
        self.members = members
        self.names = tuple(name for name, _ in first)
        each = [[p.detach() for p in m.parameters()] for m in members]
        for i, (name, p) in enumerate(first):
            stacked = torch.stack([params[i] for params in each])
            self.register_parameter(name.replace(".", "__"), nn.Parameter(stacked, p.requires_grad))

    def stacked(self) -> dict[str, Tensor]:
        """The stacked parameters by their members' names."""
        return dict(zip(self.names, self.parameters(), strict=True))

    def forward(self, inputs: Tensor) -> Tensor:
        """The logits (K, B, T, O) of every member k on its own inputs ``inputs[k]``:
        token ids (K, B, T) or vectors (K, B, T, F), B, T >= 1; equal, to rounding, to
        ``torch.stack([m(inputs[k]) for k, m in enumerate(self.members)])``.

        Raises:
            ValueError: naming ``inputs``: a shape, dtype or device that does not fit, or
                a token id outside the members' input vocabulary.
        """
        template = self.members[0]
        size = self.recipe.input_size(template)
        like = next(iter(self.parameters()))
        checked = _check_inputs(inputs, len(self.members), size, like)
        return self.recipe.forward(template, self.stacked(), checked)

    @torch.no_grad()
    def write_back(self) -> None:
        """Copy slice k of every stacked parameter into ``members[k]``, in place."""
        for name, stacked in self.stacked().items():
            for k, member in enumerate(self.members):
                member.get_parameter(name).copy_(stacked[k])

    @torch.no_grad()
    def read_members(self) -> None:
        """Restack every parameter from the members, in place: ``write_back`` reversed."""
        for name, stacked in self.stacked().items():
            stacked.copy_(torch.stack([m.get_parameter(name) for m in self.members]))


def _check_alike(
    k: int,
    member: nn.Module,
    first: nn.Module,
    first_params: list[tuple[str, nn.Parameter]],
    recipe: GroupedForward,
) -> None:
    """Raise a ValueError naming ``members[k]`` where it differs from ``members[0]``."""
    where = f"members[{k}]"
    if type(member) is not type(first):
        raise ValueError(
            f"{where}: a {type(member).__name__}, but members[0] is a {type(first).__name__}"
        )
    if recipe.options(member) != recipe.options(first):
        raise ValueError(
            f"{where}: options {recipe.options(member)} differ from members[0]'s "
            f"{recipe.options(first)}"
        )
    params = list(member.named_parameters())
    if [n for n, _ in params] != [n for n, _ in first_params]:
        raise ValueError(f"{where}: its parameters' names differ from members[0]'s")
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


from memrnn.models import (  # noqa: E402,F401  (register theirs)
    grouped_baselines,
    grouped_memory,
    grouped_stack_rnn,
    grouped_transformer,
)
