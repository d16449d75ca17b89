"""K models of one architecture trained as one model: "many runs as one".

Most runs are small models at small batches, where a training step on a CPU waits on
Python and on kernel launches, not on arithmetic. Runs that differ only in their seed or
learning rate have the same shapes, so ``Grouped`` stacks each parameter of K such
models into one (K, *shape) tensor and runs all K with one forward and one backward: the
matrix products become batched ones over the member dimension (``torch.bmm``), the
memory (Grefenstette et al. 2015, section 3.4), which acts row by row, runs over all K B
rows at once (``memrnn.models.controller.fused``). ``torch.func.vmap`` cannot do this:
``nn.LSTM`` and our hand-written autograd Functions have no batching rule.

The grouped forward of each model class is a function of (a template member, the stacked
parameters by name, the inputs), registered in ``FORWARDS`` beside the options its
members must share: ``MemoryRNN`` and ``MemoryAugmentedLSTM`` here, the others in
``grouped_*`` modules beside this one, which importing it registers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.models.checks import check_inputs, check_token_ids, is_token_ids
from memrnn.models.controller import MemoryRNN
from memrnn.models.controller.sequence import input_bias, linear, run_weights
from memrnn.models.transducer import MemoryAugmentedLSTM

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


def groupable(model: nn.Module) -> bool:
    """Whether ``model`` can be a member of ``Grouped``: an instance of a class in
    ``FORWARDS`` (not of a subclass, which may change the forward) whose forward draws no
    random numbers (a controller's ``gate_noise`` 0, a Transformer's dropout 0)."""
    recipe = FORWARDS.get(type(model))
    return recipe is not None and recipe.ready(model)


def _memory_rnn_options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, MemoryRNN)
    return (model.memory_kind, model.cell_kind, model.input_size, model.output_size,
            model.hidden_size, model.memory_width, model.output_hidden)  # fmt: skip


def _memory_rnn_ready(model: nn.Module) -> bool:
    return isinstance(model, MemoryRNN) and model.gate_noise == 0


def _memory_rnn_input(model: nn.Module) -> int:
    assert isinstance(model, MemoryRNN)
    return model.input_size


def _memory_rnn_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``MemoryRNN.forward``: token ids read as one-hot vectors, as the model reads them."""
    assert isinstance(model, MemoryRNN)
    w_ih = params["cell.weight_ih"]
    if is_token_ids(inputs):
        inputs = F.one_hot(inputs.long(), model.input_size).to(w_ih.dtype)
    k, b, t_len, _ = inputs.shape
    xw = linear(inputs.flatten(0, 1), w_ih[..., : model.input_size], input_bias(params))
    logits = run_weights(model, params, xw, strengths=False, noise=None).outputs
    return logits.view(k, b, t_len, -1)


def _embed(table: Tensor, inputs: Tensor) -> Tensor:
    """K members' embeddings: table (K, V, E), ids (K, B, T) or vectors (K, B, T, V) ->
    (K, B, T, E). Ids look their member's rows up, as ``nn.Embedding`` does."""
    k, vocab, _ = table.shape
    if is_token_ids(inputs):
        offsets = vocab * torch.arange(k, device=inputs.device).view(k, 1, 1)
        return F.embedding(inputs.long() + offsets, table.flatten(0, 1))
    rows = inputs.reshape(k, -1, vocab)
    return torch.bmm(rows, table).view(*inputs.shape[:-1], -1)


def _transducer_options(model: nn.Module) -> tuple[object, ...]:
    assert isinstance(model, MemoryAugmentedLSTM)
    return (model.input_vocab, model.output_vocab, *_memory_rnn_options(model.core))


def _transducer_ready(model: nn.Module) -> bool:
    return isinstance(model, MemoryAugmentedLSTM) and _memory_rnn_ready(model.core)


def _transducer_input(model: nn.Module) -> int:
    assert isinstance(model, MemoryAugmentedLSTM)
    return model.input_vocab


def _transducer_forward(model: nn.Module, params: Params, inputs: Tensor) -> Tensor:
    """``MemoryAugmentedLSTM.forward``: the embedding, the controller, tanh and the
    output layer."""
    assert isinstance(model, MemoryAugmentedLSTM)
    core = {name.removeprefix("core."): p for name, p in params.items() if name.startswith("core.")}
    embedded = _embed(params["embed.weight"], inputs)
    k, b, t_len, width = embedded.shape
    xw = linear(embedded.flatten(0, 1), core["cell.weight_ih"][..., :width], input_bias(core))
    o = torch.tanh(run_weights(model.core, core, xw, strengths=False, noise=None).outputs)
    return linear(o, params["output.weight"], params["output.bias"]).view(k, b, t_len, -1)


FORWARDS[MemoryRNN] = GroupedForward(
    _memory_rnn_options, _memory_rnn_ready, _memory_rnn_forward, _memory_rnn_input
)
FORWARDS[MemoryAugmentedLSTM] = GroupedForward(
    _transducer_options, _transducer_ready, _transducer_forward, _transducer_input
)


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
                    f"members[{k}]: a {type(member).__name__} cannot be grouped: only "
                    f"{', '.join(sorted(c.__name__ for c in FORWARDS))} drawing no random numbers "
                    "in their forward (gate noise, dropout)"
                )
        self.recipe = FORWARDS[type(members[0])]
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
    grouped_stack_rnn,
    grouped_transformer,
)
